// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * The API reference at `/docs` in a real Chromium, as someone reads it offline and tries a call:
 * every request the page makes goes to this server (no fonts or scripts from another host, no
 * blocked attempt either), and "Test Request" sends no query parameter left empty and no empty
 * `Idempotency-Key`.
 *
 * The server's public address is the address it listens on, so "Test Request" reaches it.
 * Chromium as in test/support/Chromium.ts: skipped without it, unless `REQUIRE_BROWSER=1`.
 */
import { createServer } from "node:net"
import type { Page, Request } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const aFreePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

declare global {
  interface Window {
    postwireTryItFetch?: (input: string, init?: RequestInit) => Promise<Response>
  }
}

describe.skipIf(!hasChromium)("the API reference at /docs, offline and tried", () => {
  let server: TestServer
  let browser: TestBrowser
  let page: Page
  const requests: Array<Request> = []
  const consoleLines: Array<string> = []

  /** The next request the page sends to `path` of the API, after `action`. */
  const requestAfter = async (path: string, action: () => Promise<unknown>) => {
    const sent = page.waitForRequest((request) => new URL(request.url()).pathname === path && request.resourceType() === "fetch")
    await action()
    return sent
  }

  beforeAll(async () => {
    const port = await aFreePort()
    server = await startServer("embedded", { POSTWIRE_PUBLIC_URL: `http://127.0.0.1:${port}` }, { port })
    browser = await launchChromium()
    page = await browser.context.newPage()
    // On a busy machine the 3 MB page takes its time: the suite's own limits bound the waits.
    page.setDefaultTimeout(0)
    page.on("request", (request) => requests.push(request))
    page.on("console", (message) => consoleLines.push(`${message.text()} ${message.location().url}`))
    await page.goto(`${server.baseUrl}/docs`)
    await page.waitForFunction(() => document.body.innerText.includes("curl"))
    await page.waitForLoadState("networkidle")
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it("loads everything from this server: no other host is asked for anything, and nothing is refused", () => {
    const origin = new URL(server.baseUrl).origin
    const elsewhere = requests.map((request) => request.url()).filter((url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin)
    expect(elsewhere).toEqual([])
    // The browser's own request for /favicon.ico is not the page's doing.
    expect(consoleLines.filter((line) => /Content Security Policy|Failed to load|ERR_/i.test(line) && !line.endsWith("/favicon.ico"))).toEqual([])
  })

  it("sends Test Request through the page's own fetch, which leaves out empty query parameters and an empty Idempotency-Key", async () => {
    expect(await page.evaluate(() => typeof window.postwireTryItFetch)).toBe("function")
    const listed = await requestAfter("/v1/posts", () =>
      page.evaluate(
        ([url, key]) => window.postwireTryItFetch!(`${url}/v1/posts?profile_id=&from=&status=%20&limit=5`, { headers: { authorization: `Bearer ${key}`, "idempotency-key": "" } }),
        [server.baseUrl, server.testKey] as const
      )
    )
    expect(new URL(listed.url()).search).toBe("?limit=5")
    expect(await listed.allHeaders()).not.toHaveProperty("idempotency-key")
    expect((await listed.response())?.status()).toBe(200)

    const body = JSON.stringify({ profile_id: server.profileId, caption: "Tried from /docs", targets: [] })
    const created = await requestAfter("/v1/posts/validate", () =>
      page.evaluate(
        ([url, key, text]) =>
          window.postwireTryItFetch!(`${url}/v1/posts/validate`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "  " },
            body: text
          }),
        [server.baseUrl, server.testKey, body] as const
      )
    )
    expect(await created.allHeaders()).not.toHaveProperty("idempotency-key")
    expect(created.postData()).toBe(body)
    // A key with a value is sent as it is.
    const keyed = await requestAfter("/v1/posts/validate", () =>
      page.evaluate(([url]) => window.postwireTryItFetch!(`${url}/v1/posts/validate`, { method: "POST", headers: { "idempotency-key": "k1" }, body: "{}" }), [server.baseUrl] as const)
    )
    expect((await keyed.allHeaders())["idempotency-key"]).toBe("k1")
  })

  it("Test Request on a create sends no empty Idempotency-Key and no empty query parameter", async () => {
    await page.locator("button", { hasText: "Test Request(post /v1/posts)" }).first().click()
    const sent = await requestAfter("/v1/posts", () => page.locator("button", { hasText: /^Send/ }).first().click())
    const headers = await sent.allHeaders()
    expect(sent.method()).toBe("POST")
    if ("idempotency-key" in headers) expect(headers["idempotency-key"]?.trim()).not.toBe("")
    for (const [name, value] of new URL(sent.url()).searchParams) expect(`${name}=${value.trim()}`).not.toBe(`${name}=`)
  })
})
