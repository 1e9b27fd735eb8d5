// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * The API reference at `/docs` in a real Chromium: the words and samples a person reads and copies.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`). Without it these tests
 * are skipped, unless `REQUIRE_BROWSER=1` (CI), which makes them fail instead.
 */
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const hasChromium = existsSync(executablePath)
if (!hasChromium && process.env.REQUIRE_BROWSER === "1") {
  throw new Error(`REQUIRE_BROWSER=1 but Chromium is not at ${executablePath}: the browser tests must run`)
}

/** The body a curl sample sends, parsed. */
const dataOf = (sample: string): unknown => {
  const start = sample.indexOf("--data '")
  if (start < 0) throw new Error(`no --data in ${sample}`)
  return JSON.parse(sample.slice(start + "--data '".length, sample.lastIndexOf("'")))
}

describe.skipIf(!hasChromium)("the API reference at /docs in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let page: Page
  let document: Record<string, any>

  beforeAll(async () => {
    server = await startServer("embedded")
    document = (await call(server.baseUrl, "GET", "/v1/openapi.json")).body
    browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-quic"] })
    page = await browser.newPage()
    await page.goto(`${server.baseUrl}/docs`)
    await page.waitForFunction(() => document.body.innerText.includes("curl"))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  /** The curl samples on the page for `METHOD path`. */
  const curlSamples = (method: string, path: string) =>
    page.$$eval(
      "pre, code",
      (elements, wanted) =>
        elements
          .map((e) => e.textContent ?? "")
          .filter((text) => text.startsWith("curl") && text.includes(wanted.url) && text.includes(`--request ${wanted.method}`)),
      // The samples call the server the OpenAPI document names: the instance's public address.
      { url: `${document.servers[0].url}${path}`, method }
    )

  it("sends the API key as Authorization: Bearer in its curl samples", async () => {
    const samples = await curlSamples("POST", "/v1/posts")
    expect(samples.length).toBeGreaterThan(0)
    for (const sample of samples) {
      expect(sample).toContain("--header 'Authorization: Bearer ")
      expect(sample).not.toContain("Authorization: Basic")
    }
  })

  it("fills the create sample with the first example, not a body mixing options or sending an empty time", async () => {
    const [first] = Object.values<{ value: unknown }>(document.paths["/v1/posts"].post.requestBody.content["application/json"].examples)
    const [sample] = await curlSamples("POST", "/v1/posts")
    expect(dataOf(sample ?? "")).toEqual(first?.value)
    const [update] = await curlSamples("PATCH", "/v1/posts/{id}")
    expect(dataOf(update ?? "")).not.toHaveProperty("scheduled_at", "")
  })

  it("shows the descriptions of the contract's operations and fields, word for word", async () => {
    const create = document.paths["/v1/posts"].post
    const fields = create.requestBody.content["application/json"].schema.properties
    const text = await page.evaluate(() => document.body.innerText)
    for (const words of [create.description, fields.caption.description, fields.media.description, fields.scheduled_at.description]) {
      // The viewer renders Markdown: backticks become code, the words stay.
      expect(text).toContain((words as string).replaceAll("`", ""))
    }
  })
})
