/**
 * A person's connect journey over plain HTTP, for black-box tests: open the link, continue to
 * the platform, answer the (simulated) consent page, follow the callback. Each step's response
 * is kept so a test can assert on any page on the way.
 */
import { call, type Reply } from "./Http.ts"
import type { TestServer } from "./TestServer.ts"

/** A response read without following redirects. */
export interface Step {
  readonly status: number
  readonly location: string | null
  readonly body: string
}

/**
 * The cookies a person's browser holds, by origin: a connect journey is bound to the browser
 * that started it (a cookie set on the way to the platform, required on its answer).
 */
const browserCookies = new Map<string, Map<string, string>>()

/** Forgets every cookie, as another browser would start with none. */
export const clearCookies = (): void => browserCookies.clear()

/** Fetches `url` without following redirects, as a browser would: sending and keeping its cookies. */
export const step = async (url: string, init: RequestInit = {}): Promise<Step> => {
  const { origin } = new URL(url)
  const jar = browserCookies.get(origin) ?? new Map<string, string>()
  browserCookies.set(origin, jar)
  const headers = new Headers(init.headers)
  if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "))
  const response = await fetch(url, { ...init, headers, redirect: "manual" })
  for (const cookie of response.headers.getSetCookie()) {
    const [pair = ""] = cookie.split(";", 1)
    const at = pair.indexOf("=")
    if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim())
  }
  return { status: response.status, location: response.headers.get("location"), body: await response.text() }
}

/** Posts a form without following redirects. */
export const postForm = (url: string, fields: ReadonlyArray<readonly [string, string]>): Promise<Step> =>
  step(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields.map(([k, v]) => [k, v])).toString()
  })

/** The absolute address of a `Location` relative to the server. */
export const absolute = (server: TestServer, location: string) => new URL(location, server.baseUrl).toString()

/** Makes a connect link. */
export const aConnectLink = async (
  server: TestServer,
  body: Record<string, unknown>,
  key = server.testKey
): Promise<Reply> => call(server.baseUrl, "POST", "/v1/accounts/connect", { key, body: { profile_id: server.profileId, ...body } })

/** The hidden fields of the first form of a page. */
export const hiddenFields = (page: string): Array<[string, string]> =>
  [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
    decodeEntities(m[1]!),
    decodeEntities(m[2]!)
  ])

const decodeEntities = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** What a sandbox journey went through. */
export interface Journey {
  readonly page: Step
  readonly consent: Step
  /** The consent page's answer: a redirect to the callback. */
  readonly consented: Step
  /** The callback's answer: a redirect to `redirect_url`, a result page, or the Page picker. */
  readonly callback: Step
  readonly callbackUrl: string
}

/**
 * Runs a sandbox connect from the link's page to the callback's answer: `handles` typed on the
 * consent page, `allow` or `cancel`.
 */
export const sandboxJourney = async (
  server: TestServer,
  linkUrl: string,
  options: { readonly handles?: ReadonlyArray<string>; readonly decision?: "allow" | "cancel" } = {}
): Promise<Journey> => {
  const page = await step(linkUrl)
  if (page.status !== 200) throw new Error(`link page: ${page.status} ${page.body.slice(0, 300)}`)
  const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)?.[1]
  if (start === undefined) throw new Error("no continue link on the page")
  const started = await step(absolute(server, decodeEntities(start)))
  if (started.status !== 303 || started.location === null) throw new Error(`start: ${started.status}`)
  const consent = await step(absolute(server, started.location))
  if (consent.status !== 200) throw new Error(`consent page: ${consent.status} ${consent.body.slice(0, 300)}`)
  const fields: Array<[string, string]> = [
    ...hiddenFields(consent.body),
    ...(options.handles ?? ["sandbox_creator"]).map((h): [string, string] => ["handle", h]),
    ["decision", options.decision ?? "allow"]
  ]
  const consented = await postForm(absolute(server, "/connect/sandbox/authorize"), fields)
  if (consented.status !== 303 || consented.location === null) throw new Error(`consent: ${consented.status} ${consented.body.slice(0, 300)}`)
  const callbackUrl = absolute(server, consented.location)
  const callback = await step(callbackUrl)
  return { page, consent, consented, callback, callbackUrl }
}

/** The query of a redirect to `redirect_url`. */
export const returnedQuery = (step: Step): URLSearchParams => {
  if (step.status !== 303 || step.location === null) throw new Error(`expected a redirect, got ${step.status} ${step.body.slice(0, 300)}`)
  return new URL(step.location).searchParams
}

/** A loopback port free right now, so a server's public URL can name it before it starts. */
export const aFreePort = async (): Promise<number> => {
  const { createServer } = await import("node:net")
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })
}

/** Starts a server whose public URL is its own loopback address (the connect journey leaves and comes back there). */
export const aConnectServer = async (
  start: (env: Record<string, string>, options: { port: number }) => Promise<TestServer>,
  env: Record<string, string> = {}
): Promise<TestServer> => {
  const port = await aFreePort()
  return start({ POSTWIRE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...env }, { port })
}
