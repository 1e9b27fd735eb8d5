/**
 * Debian's Chromium for the browser tests, started the way this machine needs it (no sandbox as
 * root, no background networking on a closed network). Found at `CHROMIUM_PATH` (default
 * `/usr/bin/chromium`); without it the browser tests skip, unless `REQUIRE_BROWSER=1` (CI).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"

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

/**
 * A tab whose requests under `pattern` (the workspace's allowed redirect domain, which does not
 * resolve here) are answered locally with a page whose `h1` is `heading`.
 */
export const aPageLandingAt = async (context: BrowserContext, pattern: string, heading: string): Promise<Page> => {
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  cdp.on("Fetch.requestPaused", (event) => {
    cdp
      .send("Fetch.fulfillRequest", {
        requestId: event.requestId,
        responseCode: 200,
        responseHeaders: [{ name: "content-type", value: "text/html; charset=utf-8" }],
        body: Buffer.from(`<!doctype html><title>Landed</title><h1>${heading}</h1>`).toString("base64")
      })
      .catch(() => undefined)
  })
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: pattern }] })
  return page
}
