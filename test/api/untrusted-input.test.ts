/**
 * Untrusted input and the answers that carry it (issue #37, F10), over real HTTP: text people
 * wrote is isolated on our pages so bidi controls cannot reorder them, only `https:` profile
 * pictures are kept and shown, the API reference cannot be framed or load foreign scripts, and
 * media bytes are never sniffed into something else.
 */
import { randomBytes } from "node:crypto"
import { Keyring, MediaUrls } from "@postwire/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anImage, aPost } from "../support/Builders.ts"
import { absolute, aConnectLink, aConnectServer, hiddenFields, postForm, step } from "../support/Connect.ts"
import { platformFakes, type PlatformFakes } from "../support/Fakes.ts"
import { call } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

const rlo = "\u202E"
/** A caption that, shown raw, reads "…approve" backwards into whatever follows it. */
const spoofing = `Summer sale ${rlo}evorppa`

describe.each(backends())("untrusted input on %s", (backend) => {
  let server: TestServer
  const secret = randomBytes(32).toString("base64url")

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_SECRET: secret })
  })
  afterAll(() => server?.stop())

  it("isolates a caption with a right-to-left override on the approval page", async () => {
    const image = await anImage(server)
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [image], { caption: spoofing })
    })
    expect(created.status).toBe(201)
    const page = await fetch(`${server.baseUrl}${new URL(created.body.approval.url).pathname}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain(`<bdi>${spoofing}</bdi>`)
    // Nowhere else on the page is the override outside an isolate.
    expect(html.split(`<bdi>${spoofing}</bdi>`).join("")).not.toContain(rlo)
  })

  it("isolates a workspace's and a profile's names on the connect page", async () => {
    const workspace = await server.admin("/workspaces", { name: `Acme ${rlo}kcab` })
    const { key } = await server.admin<{ id: string; key: string }>(`/workspaces/${workspace.id}/keys`, {
      kind: "test",
      scopes: ["accounts:write", "posts:read"]
    })
    const profile = await server.admin(`/workspaces/${workspace.id}/profiles`, { name: `Shop ${rlo}\u2069pots` })
    const link = await call(server.baseUrl, "POST", "/v1/accounts/connect", {
      key,
      body: { profile_id: profile.id, platform: "photo", sandbox: true }
    })
    expect(link.status).toBe(201)
    const page = await step(link.body.url.replace(/^https?:\/\/[^/]+/, server.baseUrl))
    expect(page.status).toBe(200)
    expect(page.body).toContain(`\u2068Acme ${rlo}kcab\u2069`)
    // The name's own pop-isolate cannot end the isolate early.
    expect(page.body).toContain(`\u2068Shop ${rlo}pots\u2069`)
  })

  it("serves the API reference with a Content-Security-Policy and frame protection", async () => {
    for (const path of ["/docs", "/docs/errors"]) {
      const response = await fetch(`${server.baseUrl}${path}`)
      expect(response.status).toBe(200)
      const csp = response.headers.get("content-security-policy") ?? ""
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).toContain("object-src 'none'")
      expect(csp).toMatch(/script-src 'self'[^;]*;/)
      expect(csp).not.toMatch(/script-src[^;]*(https:|\*)/)
      expect(response.headers.get("x-frame-options")).toBe("DENY")
      await response.arrayBuffer()
    }
  })

  it("answers media bytes with nosniff, found or not", async () => {
    const image = await anImage(server)
    const url = MediaUrls.signMediaUrl(
      { publicBaseUrl: server.baseUrl, keyring: Keyring.make([secret]) },
      { workspaceId: server.workspaceId, id: image },
      Date.now() + 600_000
    )
    const found = await fetch(url)
    expect(found.status).toBe(200)
    expect(found.headers.get("content-type")).toBe("image/png")
    expect(found.headers.get("x-content-type-options")).toBe("nosniff")
    await found.arrayBuffer()
    const forged = await fetch(url.replace(/sig=[\w-]+$/, `sig=${"A".repeat(43)}`))
    expect(forged.status).toBe(404)
    expect(forged.headers.get("x-content-type-options")).toBe("nosniff")
    await forged.arrayBuffer()
  })
})

describe.each(backends())("profile pictures from a platform on %s", (backend) => {
  let server: TestServer
  let fakes: PlatformFakes

  beforeAll(async () => {
    fakes = await platformFakes()
    server = await aConnectServer((env, options) => startServer(backend, env, options), fakes.env)
    fakes.register(new URL(server.baseUrl).origin.replace("localhost", "127.0.0.1"))
  })
  afterAll(async () => {
    await server?.stop()
    await fakes?.stop()
  })

  const connectShortvideo = async () => {
    const liveKey = (
      await server.admin<{ id: string; key: string }>(`/workspaces/${server.workspaceId}/keys`, {
        kind: "live",
        scopes: ["accounts:write", "posts:read"]
      })
    ).key
    const link = await aConnectLink(server, { platform: "shortvideo" }, liveKey)
    expect(link.status).toBe(201)
    const page = await step(link.body.url)
    const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replaceAll("&amp;", "&")
    const started = await step(absolute(server, start))
    const callback = await fakes.shortvideo.approve(started.location!)
    const result = await step(callback)
    expect(result.status).toBe(200)
    const accounts = await call(server.baseUrl, "GET", "/v1/accounts?limit=100", { key: liveKey })
    return accounts.body.data.find((a: { handle: string }) => a.handle === fakes.shortvideo.person.username)
  }

  it("are shown only at https: addresses: a javascript: one is null", async () => {
    fakes.shortvideo.person.avatar_url = "javascript:alert(document.domain)"
    const account = await connectShortvideo()
    expect(account).toBeDefined()
    expect(account.avatar_url).toBeNull()

    fakes.shortvideo.person.avatar_url = "https://p16.tiktokcdn.example/avatar.jpeg"
    const again = await connectShortvideo()
    expect(again.avatar_url).toBe("https://p16.tiktokcdn.example/avatar.jpeg")
  })
})

describe.each(backends())("the connect callback's browser on %s", (backend) => {
  let server: TestServer

  beforeAll(async () => {
    server = await aConnectServer((env, options) => startServer(backend, env, options))
  })
  afterAll(() => server?.stop())

  /** A sandbox journey up to the platform's answer (the callback address), in a browser that keeps cookies. */
  const toTheCallback = async () => {
    const link = await aConnectLink(server, { platform: "textpost", redirect_url: "https://app.example.com/done" })
    expect(link.status).toBe(201)
    const page = await step(link.body.url)
    const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replaceAll("&amp;", "&")
    // The browser continues to the platform and keeps the cookie it is given.
    const started = await fetch(absolute(server, start), { redirect: "manual" })
    expect(started.status).toBe(303)
    const cookie = started.headers.get("set-cookie") ?? ""
    const consent = await step(absolute(server, started.headers.get("location")!))
    const fields = [...hiddenFields(consent.body), ["handle", `other_browser_${Date.now() % 100000}`], ["decision", "allow"]] as Array<[string, string]>
    const consented = await postForm(absolute(server, "/connect/sandbox/authorize"), fields)
    expect(consented.status).toBe(303)
    return { callbackUrl: absolute(server, consented.location!), cookie }
  }

  it("sets a SameSite=Lax, HttpOnly cookie on the way to the platform", async () => {
    const { cookie } = await toTheCallback()
    expect(cookie).toMatch(/^pw_connect_[0-9a-f]+=1;/)
    expect(cookie).toContain("HttpOnly")
    expect(cookie).toContain("SameSite=Lax")
    expect(cookie).toContain("Path=/connect")
    // The server's public address is http: here, so the cookie is not Secure-only.
    expect(cookie).not.toContain("Secure")
  })

  it("refuses the platform's answer opened in another browser with a clear page, and connects nothing", async () => {
    const { callbackUrl, cookie } = await toTheCallback()
    const elsewhere = await fetch(callbackUrl, { redirect: "manual" })
    expect(elsewhere.status).toBe(400)
    const html = await elsewhere.text()
    expect(html).toContain("Finish in the browser you started in")
    expect(html).toContain("Open the connect link again here")

    // The browser that started it, sending its cookie back, still finishes.
    const here = await fetch(callbackUrl, { redirect: "manual", headers: { cookie: cookie.split(";", 1)[0]! } })
    expect(here.status).toBe(303)
    expect(new URL(here.headers.get("location")!).searchParams.get("status")).toBe("connected")
  })
})
