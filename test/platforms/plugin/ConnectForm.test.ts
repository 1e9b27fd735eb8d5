/**
 * Platforms whose connect starts with a form on Postwire's hosted page (a plugin's
 * `connect.form` and `begin`), over plain HTTP against a real server: `notes` trades a handle
 * and an app password for a session at once (no redirect); `guild` registers an app on the
 * server the person names, then redirects to its OAuth page and finishes with the `memo` it
 * kept. The form's values are checked (the documented error shape, on the page and as JSON),
 * a password is never shown again, and a caller without a browser posts the fields as JSON.
 * `circles` declares an account picker (`capabilities.choosesAccounts`, generic words) and signed
 * deauthorization callbacks: both work for a plugin as for Facebook Pages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aKeyWithScopes } from "../../support/Builders.ts"
import { absolute, aConnectLink, aConnectServer, postForm, returnedQuery, step } from "../../support/Connect.ts"
import { call, errorOf, type Reply } from "../../support/Http.ts"
import { backends, startServer, type TestServer } from "../../support/TestServer.ts"
import { MetaSignedRequest } from "@postwire/platforms"
import { circlesPlugin, circlesSecret, guildPlugin, notesPlugin } from "./FormPlugins.ts"
import * as FormService from "./FormService.ts"

const back = "https://app.example.com/accounts/connected"

describe.each(backends())("connect forms of plugin platforms on %s", (backend) => {
  let server: TestServer
  let service: FormService.FormService
  let liveKey: string

  beforeAll(async () => {
    service = await FormService.start()
    server = await aConnectServer((env, options) =>
      startServer(backend, env, { ...options, plugins: [notesPlugin(service.url), guildPlugin(), circlesPlugin()] })
    )
    liveKey = await aKeyWithScopes(server, ["posts:read", "posts:write", "accounts:write"], "live")
  })
  afterAll(async () => {
    await server?.stop()
    await service?.stop()
  })

  const linkFor = async (platform: string, extra: Record<string, unknown> = {}) => {
    const link = await aConnectLink(server, { platform, redirect_url: back, ...extra }, liveKey)
    expect(link.status).toBe(201)
    return link.body.url as string
  }
  const startOf = (linkUrl: string) => `${linkUrl}/start`
  const postJson = (url: string, body: unknown): Promise<Reply> =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "accept-language": "en" },
      body: typeof body === "string" ? body : JSON.stringify(body)
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() }))
  const accountOf = async (id: string) => (await call(server.baseUrl, "GET", `/v1/accounts/${id}`, { key: liveKey })).body
  const inputOf = (page: string, name: string) => new RegExp(`<input id="field-${name}"[^>]*>`).exec(page)?.[0] ?? ""

  describe("the hosted page", () => {
    it("asks for the plugin's fields with labels, help and a password field that starts empty", async () => {
      const page = await step(await linkFor("notes"))

      expect(page.status).toBe(200)
      expect(page.body).toContain("<h1>Connect your Notes account</h1>")
      expect(page.body).toMatch(/<form method="post" action="\/connect\/[A-Za-z0-9_-]+\/start" data-connect-form>/)
      expect(page.body).toContain('<label for="field-handle">Handle</label>')
      expect(page.body).toContain('<label for="field-password">App password</label>')
      expect(inputOf(page.body, "handle")).toContain('placeholder="you.example"')
      expect(inputOf(page.body, "handle")).toContain('aria-describedby="field-handle-help"')
      expect(inputOf(page.body, "password")).toContain('type="password"')
      expect(inputOf(page.body, "password")).toContain('value=""')
      // No button to the platform: the form's submit continues.
      expect(page.body).not.toContain("/start?lang=")
    })

    it("shows what is wrong next to the field, keeps the handle, and never writes the password back", async () => {
      const link = await linkFor("notes")
      await step(link)
      const answer = await postForm(startOf(link), [
        ["lang", "en"],
        ["handle", "  ana.example  "],
        ["password", ""]
      ])

      expect(answer.status).toBe(400)
      expect(answer.body).toContain('role="alert" data-error="invalid_request"')
      expect(answer.body).toContain('<a href="#field-password">App password: is required</a>')
      expect(answer.body).toContain('<p class="problem-text" id="field-password-error">is required</p>')
      expect(inputOf(answer.body, "password")).toContain('aria-invalid="true"')
      expect(inputOf(answer.body, "password")).toContain('aria-describedby="field-password-help field-password-error"')
      expect(inputOf(answer.body, "handle")).toContain('value="ana.example"')
      expect(service.received.filter((r) => r.call === "POST /session")).toHaveLength(0)
    })

    it("shows the platform's refusal of a wrong app password and keeps the link open; the password is never in the page", async () => {
      const link = await linkFor("notes")
      const wrong = await postForm(startOf(link), [
        ["lang", "en"],
        ["handle", "ana.example"],
        ["password", "wrong-password-123"]
      ])

      expect(wrong.status).toBe(422)
      expect(wrong.body).toContain('data-error="connect_failed"')
      expect(wrong.body).toContain("The platform did not complete the connection.")
      expect(wrong.body).not.toContain("wrong-password-123")
      expect(inputOf(wrong.body, "handle")).toContain('value="ana.example"')

      // The same link still works: the right password connects and returns to the app.
      const right = await postForm(startOf(link), [
        ["lang", "en"],
        ["handle", "ana.example"],
        ["password", FormService.person.password]
      ])
      const query = returnedQuery(right)
      expect(query.get("status")).toBe("connected")
      const account = await accountOf(query.get("account_id")!)
      expect(account).toMatchObject({ platform: "notes", handle: "ana.example", status: "connected", sandbox: false })
      // What reached the platform is what the person typed.
      expect(JSON.parse(service.received.filter((r) => r.call === "POST /session").at(-1)!.body)).toEqual({
        identifier: "ana.example",
        password: FormService.person.password
      })
      // The link is used up now.
      expect((await step(link)).status).toBe(409)
    })

    it("registers an app on the server the person names, redirects there, and finishes with the kept memo", async () => {
      const link = await linkFor("guild")
      const page = await step(link)
      expect(page.body).toContain("<label for=\"field-server\">Your server&#39;s address</label>")
      expect(inputOf(page.body, "server")).toContain('inputmode="url"')

      const apps = service.apps.size
      const started = await postForm(startOf(link), [
        ["lang", "en"],
        ["server", `  ${service.url}/  `]
      ])
      expect(started.status).toBe(303)
      const authorize = new URL(started.location!)
      expect(authorize.origin).toBe(service.url)
      expect(service.apps.size).toBe(apps + 1)
      expect(service.apps.get(authorize.searchParams.get("client_id")!)?.redirectUri).toBe(`${server.baseUrl}/connect/callback/guild`)

      const consented = await step(started.location!)
      expect(consented.status).toBe(302)
      const callback = await step(absolute(server, consented.location!))
      const query = returnedQuery(callback)
      expect(query.get("status")).toBe("connected")
      expect(await accountOf(query.get("account_id")!)).toMatchObject({ platform: "guild", handle: "budi", display_name: "Budi" })
    })

    it("refuses an address that is not http(s), and one that answers nothing, at the field", async () => {
      const link = await linkFor("guild")
      const ftp = await postForm(startOf(link), [["server", "ftp://guild.example"]])
      expect(ftp.status).toBe(400)
      expect(ftp.body).toContain('<a href="#field-server">Your server&#39;s address: it must use https</a>')
      expect(inputOf(ftp.body, "server")).toContain('value="ftp://guild.example"')

      const closed = await postForm(startOf(link), [["server", "http://127.0.0.1:9"]])
      expect(closed.status).toBe(400)
      expect(closed.body).toContain("Your server&#39;s address: the address could not be reached")
    })

    it("keeps the OAuth flow of a platform without a form: the page's button, then the platform", async () => {
      const page = await step(await linkFor("notes", { sandbox: true }))
      // A sandbox connect asks nothing: the simulated consent page asks for a handle.
      expect(page.body).not.toContain("data-connect-form")
      const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)?.[1]
      expect(start).toBeDefined()
      const started = await step(absolute(server, start!.replace(/&amp;/g, "&")))
      expect(started.status).toBe(303)
      expect(new URL(started.location!, server.baseUrl).pathname).toBe("/connect/sandbox/authorize")
    })
  })

  describe("a plugin's account picker and deauthorization", () => {
    it("lets the person choose among the accounts begin gave, with the generic picker words", async () => {
      const link = await linkFor("circles")
      const page = await step(link)
      expect(page.body).toContain("You will choose which of your Circles accounts to connect.")
      // No form: the button starts, and begin connects without a redirect.
      const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replace(/&amp;/g, "&")
      const picker = await step(absolute(server, start))
      expect(picker.status).toBe(200)
      expect(picker.body).toContain("<h1>Choose the Circles accounts to connect</h1>")
      expect(picker.body).toContain('action="/connect/callback/circles"')
      const state = /name="state" value="([^"]+)"/.exec(picker.body)![1]!

      const none = await postForm(absolute(server, "/connect/callback/circles"), [["state", state], ["lang", "en"]])
      expect(none.status).toBe(422)
      expect(none.body).toContain("Choose at least one account.")

      const chosen = await postForm(absolute(server, "/connect/callback/circles"), [
        ["state", state],
        ["lang", "en"],
        ["page", "c-readers"]
      ])
      const ids = returnedQuery(chosen).get("account_id")!.split(",")
      expect(ids).toHaveLength(1)
      expect(await accountOf(ids[0]!)).toMatchObject({ platform: "circles", handle: "readers", display_name: "The readers" })
    })

    it("offers several handles on the sandbox consent page of a platform that chooses accounts", async () => {
      const page = await step(await linkFor("circles", { sandbox: true }))
      const start = /href="([^"]+\/start[^"]*)"/.exec(page.body)![1]!.replace(/&amp;/g, "&")
      const started = await step(absolute(server, start))
      const consent = await step(absolute(server, started.location!))
      expect(consent.body).toContain("Sandbox Circles: allow access?")
      expect(consent.body).toContain('<label for="handle-0">Account 1 handle</label>')
      expect(consent.body).toContain('<label for="handle-1">Account 2 handle</label>')
    })

    it("disconnects every account of the consent on the plugin's signed deauthorization callback", async () => {
      const link = await linkFor("circles")
      const start = /href="([^"]+\/start[^"]*)"/.exec((await step(link)).body)![1]!.replace(/&amp;/g, "&")
      const picker = await step(absolute(server, start))
      const state = /name="state" value="([^"]+)"/.exec(picker.body)![1]!
      const chosen = await postForm(absolute(server, "/connect/callback/circles"), [
        ["state", state],
        ["page", "c-runners"],
        ["page", "c-readers"]
      ])
      const ids = returnedQuery(chosen).get("account_id")!.split(",")
      const deauthorize = (path: string, secret: string) =>
        call(server.baseUrl, "POST", path, {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            signed_request: MetaSignedRequest.sign({ algorithm: "HMAC-SHA256", user_id: "person-7", issued_at: Math.floor(Date.now() / 1000) }, secret)
          }).toString()
        })

      // A platform that declares no deauthorization has no such address.
      expect((await deauthorize("/connect/deauthorize/notes", circlesSecret)).status).toBe(404)
      expect((await deauthorize("/connect/deauthorize/circles", "another-secret")).status).toBe(400)
      const reply = await deauthorize("/connect/deauthorize/circles", circlesSecret)
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ received: true, disconnected: 2 })
      for (const id of ids) expect((await accountOf(id)).status).toBe("disconnected")
    })
  })

  describe("POST /connect/{token}/start as JSON (no browser)", () => {
    it("connects with the fields and answers the account ids", async () => {
      const link = await linkFor("notes")
      const reply = await postJson(startOf(link), { fields: { handle: "ana.example", password: FormService.person.password } })

      expect(reply.status).toBe(200)
      expect(reply.headers.get("cache-control")).toBe("no-store")
      expect(reply.body).toEqual({ status: "connected", account_ids: [expect.stringMatching(/^acc_/)] })
      expect(await accountOf(reply.body.account_ids[0])).toMatchObject({ platform: "notes", handle: "ana.example" })
      const again = await postJson(startOf(link), { fields: { handle: "ana.example", password: FormService.person.password } })
      expect(again.status).toBe(409)
      expect(errorOf(again).code).toBe("connect_link_used")
    })

    it("answers the documented error shape naming the field, every problem in issues", async () => {
      const link = await linkFor("notes")
      const reply = await postJson(startOf(link), { fields: { handle: "", password: "x".repeat(600), colour: "blue" } })

      expect(reply.status).toBe(400)
      const error = errorOf(reply)
      expect(error).toMatchObject({ code: "invalid_request", field: "fields.colour", retryable: false })
      expect(error.message).toBe("The request is invalid at fields.colour: is not a known field")
      expect(error.issues?.map((i) => [i.field, i.message])).toEqual([
        ["fields.colour", "The request is invalid at fields.colour: is not a known field"],
        ["fields.handle", "The request is invalid at fields.handle: is required"],
        ["fields.password", "The request is invalid at fields.password: must have a length of at most 512"]
      ])
      expect(JSON.stringify(reply.body)).not.toContain("xxxx")
    })

    it("refuses a body that is not the fields object", async () => {
      const link = await linkFor("notes")
      const cases: ReadonlyArray<readonly [unknown, string, string]> = [
        ["{not json", "body", "must be valid JSON"],
        [[], "body", "must be a JSON object"],
        [{ fields: "x" }, "fields", "must be an object"],
        [{ fields: { handle: 1 } }, "fields.handle", "must be a string"],
        [{ other: 1 }, "other", "is not a known field"]
      ]
      for (const [body, field, detail] of cases) {
        const reply = await postJson(startOf(link), body)
        expect(reply.status, JSON.stringify(body)).toBe(400)
        expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field, message: `The request is invalid at ${field}: ${detail}` })
      }
    })

    it("answers the platform's refusal as the documented error, and a redirect platform's address", async () => {
      const refused = await postJson(startOf(await linkFor("notes")), { fields: { handle: "ana.example", password: "nope" } })
      expect(refused.status).toBe(422)
      expect(errorOf(refused)).toMatchObject({ code: "connect_failed", platform_code: "AuthenticationRequired" })

      const redirect = await postJson(startOf(await linkFor("guild")), { fields: { server: service.url } })
      expect(redirect.status).toBe(200)
      expect(redirect.body.status).toBe("redirect")
      expect(new URL(redirect.body.url).origin).toBe(service.url)
    })

    it("answers 404 for a token that names no link", async () => {
      const reply = await postJson(`${server.baseUrl}/connect/nothing-here/start`, { fields: {} })
      expect(reply.status).toBe(404)
      expect(errorOf(reply).code).toBe("not_found")
    })
  })
})
