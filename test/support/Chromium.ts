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

/** How {@link launchChromium} starts the browser. */
export interface LaunchOptions {
  readonly viewport?: { width: number; height: number }
  /**
   * Ignores pages' Content-Security-Policy: for connect pages whose form posts to a plain-http
   * loopback fake (real platforms are https, which the policy allows).
   */
  readonly bypassCSP?: boolean
}

/** Starts Chromium with a fresh profile directory. */
export const launchChromium = async (options: LaunchOptions = {}): Promise<TestBrowser> => {
  const userDataDir = mkdtempSync(join(tmpdir(), "postwire-chromium-"))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: chromiumArgs,
    ...(options.viewport === undefined ? {} : { viewport: options.viewport }),
    ...(options.bypassCSP === undefined ? {} : { bypassCSP: options.bypassCSP })
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    }
  }
}

/** What {@link aPageLandingAt}'s tab answers, and how it asks. */
export interface LandingOptions {
  /**
   * The requests answered locally (default `https://app.example.com/*`: the workspace's allowed
   * redirect domain, which does not resolve here).
   */
  readonly pattern?: string
  /** The `h1` of the page answered (default "Back at Acme"). */
  readonly heading?: string
  /** The tab's `Accept-Language` (Chromium's own otherwise). */
  readonly acceptLanguage?: string
  /**
   * Requests under `pattern` go on to the address `to` gives instead, as a server that sends the
   * person back with its own answer would.
   */
  readonly divert?: { readonly pattern: string; readonly to: (url: URL) => URL }
}

/** Whether `url` falls under a Chrome DevTools URL pattern (`*` any characters, `?` one). */
const underPattern = (pattern: string, url: string): boolean =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`).test(url)

/**
 * A tab whose requests to the app's domain are answered locally with a page whose `h1` is the
 * heading. Requests are caught by Chromium's own interception: Playwright's routes miss the hops
 * of a redirect.
 *
 * @example
 * const page = await aPageLandingAt(browser.context, { acceptLanguage: "id-ID,id;q=0.9" })
 * await page.goto(link.url)
 * await Promise.all([page.waitForURL((url) => url.host === "app.example.com"), page.getByRole("button", { name: "Allow" }).click()])
 * expect(await page.locator("h1").innerText()).toBe("Back at Acme")
 */
export const aPageLandingAt = async (context: BrowserContext, options: LandingOptions = {}): Promise<Page> => {
  const { pattern = "https://app.example.com/*", heading = "Back at Acme", acceptLanguage, divert } = options
  const page = await context.newPage()
  if (acceptLanguage !== undefined) await page.setExtraHTTPHeaders({ "accept-language": acceptLanguage })
  const cdp = await context.newCDPSession(page)
  cdp.on("Fetch.requestPaused", (event) => {
    // A page the test closed meanwhile has nothing left to answer: that is not a failure.
    if (divert !== undefined && underPattern(divert.pattern, event.request.url)) {
      cdp.send("Fetch.continueRequest", { requestId: event.requestId, url: divert.to(new URL(event.request.url)).href }).catch(() => undefined)
      return
    }
    cdp
      .send("Fetch.fulfillRequest", {
        requestId: event.requestId,
        responseCode: 200,
        responseHeaders: [{ name: "content-type", value: "text/html; charset=utf-8" }],
        body: Buffer.from(`<!doctype html><title>Landed</title><h1>${heading}</h1>`).toString("base64")
      })
      .catch(() => undefined)
  })
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: pattern }, ...(divert === undefined ? [] : [{ urlPattern: divert.pattern }])] })
  return page
}
