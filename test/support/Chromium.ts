/**
 * Debian's Chromium for the browser tests, started the way this machine needs it (no sandbox as
 * root, no background networking on a closed network). Found at `CHROMIUM_PATH` (default
 * `/usr/bin/chromium`); without it the browser tests skip, unless `REQUIRE_BROWSER=1` (CI).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium } from "playwright-core"

/** Where Chromium is. */
export const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Whether the browser tests can run here. */
export const hasChromium = existsSync(executablePath)
if (!hasChromium && process.env.REQUIRE_BROWSER === "1") {
  throw new Error(`REQUIRE_BROWSER=1 but Chromium is not at ${executablePath}: the browser tests must run`)
}

/** Headless Chromium's flags on this machine. */
export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** A browser with its own empty profile; `close` also removes the profile. */
export interface TestBrowser {
  readonly context: BrowserContext
  readonly close: () => Promise<void>
}

/** Starts Chromium with a fresh profile directory. */
export const launchChromium = async (options: { readonly viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> => {
  const userDataDir = mkdtempSync(join(tmpdir(), "postwire-chromium-"))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: chromiumArgs,
    ...(options.viewport === undefined ? {} : { viewport: options.viewport })
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    }
  }
}
