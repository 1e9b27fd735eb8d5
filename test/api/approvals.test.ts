import { readdirSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import type { Approvals, CreatorInfo } from "@postwire/core"
import { PostwireError } from "@postwire/domain"
import { ConfigProblem, resolveSettings } from "@postwire/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ApprovalForm from "../../packages/server/src/approvals/ApprovalForm.ts"
import * as ApprovalView from "../../packages/server/src/approvals/ApprovalView.ts"
import { accountOf, anImage, aPost, aVideo } from "../support/Builders.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { anAccountRecord, aPostRecord, aTargetRecord } from "../support/Records.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { Ids as Id } from "@postwire/domain"

// ---------------------------------------------------------------------------------------------
// Helpers: links, a movable clock, a fake SMTP server, and the page's form
// ---------------------------------------------------------------------------------------------

/** The path `/approve/{token}` of a post's approval link (the server's public URL is not its test address). */
const approvalPath = (post: { readonly approval?: { readonly url: string } | null }): string => {
  const url = post.approval?.url
  if (url === undefined) throw new Error("the post has no approval link")
  return new URL(url).pathname
}

/** The token of a post's approval link. */
const tokenOf = (post: { readonly approval?: { readonly url: string } | null }): string =>
  approvalPath(post).slice("/approve/".length)

/** Creates a post through the API and returns its body; fails the test unless it is created. */
const createPost = async (server: TestServer, body: unknown, headers?: Record<string, string>) => {
  const reply = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body, ...(headers ? { headers } : {}) })
  if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body
}

/** A photo post waiting for approval. */
const aPhotoPost = (server: TestServer, media: ReadonlyArray<string>, overrides: Record<string, unknown> = {}) =>
  createPost(server, aPost(server, media, overrides))

/** A direct shortvideo post (without consent) waiting for approval. */
const aDirectVideoPost = (
  server: TestServer,
  video: string,
  overrides: Record<string, unknown> = {},
  account = accountOf(server, "shortvideo")
) =>
  createPost(
    server,
    aPost(server, [video], { targets: [{ account_id: account, shortvideo: { mode: "direct" } }], ...overrides })
  )

/** `POST /v1/approvals/{token}/decision`. */
const decide = (
  server: TestServer,
  token: string,
  body: unknown,
  headers?: Record<string, string>
): Promise<Reply> =>
  call(server.baseUrl, "POST", `/v1/approvals/${token}/decision`, { body, ...(headers ? { headers } : {}) })

/** A minimal SMTP server on 127.0.0.1 that keeps every message it receives. */
const aFakeSmtpServer = async () => {
  const messages: Array<string> = []
  const server: Server = createServer((socket) => {
    socket.setEncoding("utf8")
    socket.write("220 fake.test ESMTP\r\n")
    let buffer = ""
    let data: Array<string> | undefined
    socket.on("data", (chunk: string) => {
      buffer += chunk
      for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (data !== undefined) {
          if (line === ".") {
            messages.push(data.join("\r\n"))
            data = undefined
            socket.write("250 2.0.0 queued\r\n")
          } else data.push(line.startsWith("..") ? line.slice(1) : line)
          continue
        }
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === "EHLO") socket.write("250-fake.test\r\n250 8BITMIME\r\n")
        else if (verb === "DATA") {
          data = []
          socket.write("354 end with .\r\n")
        } else if (verb === "QUIT") socket.end("221 bye\r\n")
        else socket.write("250 OK\r\n")
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A received message with quoted-printable soft breaks and escapes undone. */
const readableMail = (raw: string): string =>
  raw.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))

/** The page of a link as a browser first sees it: status, HTML, and the form's anti-forgery pair. */
const openPage = async (server: TestServer, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(server.baseUrl + path, { headers })
  const html = await response.text()
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""
  return { status: response.status, headers: response.headers, html, cookie, csrf }
}

/** Posts the page's form as a browser would (urlencoded, with the cookie), without following redirects. */
const submitForm = (
  server: TestServer,
  path: string,
  fields: Record<string, string>,
  cookie: string,
  headers: Record<string, string> = {}
) =>
  fetch(server.baseUrl + path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
    body: new URLSearchParams(fields).toString()
  })

const day = 24 * 60 * 60 * 1000

describe.each(backends())("approvals on %s", (backend) => {
  let server: TestServer
  let image: string
  let video: string

  beforeAll(async () => {
    server = await startServer(backend)
    image = await anImage(server)
    video = await aVideo(server, 12)
  })
  afterAll(() => server?.stop())

  const getPost = async (id: string) => (await call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: server.testKey })).body

  describe("POST /v1/approvals/{token}/decision", () => {
    it("approves with the token alone, ignoring an API key sent along, and answers with the post", async () => {
      const post = await aPhotoPost(server, [image])
      const reply = await decide(server, tokenOf(post), { decision: "approve" }, { authorization: "Bearer svc_test_not-a-key" })
      expect(reply.status).toBe(200)
      expect(reply.body.decision).toBe("approve")
      expect(reply.body.redirect_url).toBeNull()
      expect(reply.body.post).toMatchObject({ id: post.id, status: "queued", approval: { id: post.approval.id, status: "approved" } })
      expect(reply.body.post.approval.decided_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      const stored = await getPost(post.id)
      expect(stored.approval.status).toBe("approved")
      expect(stored.targets[0].status).toBe("queued")
    })

    it("schedules a post whose scheduled_at is still ahead", async () => {
      const post = await aPhotoPost(server, [image], { scheduled_at: new Date(Date.now() + day).toISOString() })
      const reply = await decide(server, tokenOf(post), { decision: "approve" })
      expect(reply.status).toBe(200)
      expect(reply.body.post.status).toBe("scheduled")
      expect(reply.body.post.targets[0].status).toBe("scheduled")
    })

    it("rejects with a reason: every target becomes rejected", async () => {
      const post = await aPhotoPost(server, [image])
      const reply = await decide(server, tokenOf(post), { decision: "reject", reason: "Wrong product photo" })
      expect(reply.status).toBe(200)
      expect(reply.body.post.status).toBe("rejected")
      expect((await getPost(post.id)).targets[0].status).toBe("rejected")
    })

    it("answers 409 already_decided to a second decision, in the caller's language", async () => {
      const post = await aPhotoPost(server, [image])
      expect((await decide(server, tokenOf(post), { decision: "approve" })).status).toBe(200)
      const second = await decide(server, tokenOf(post), { decision: "reject" }, { "accept-language": "id" })
      expect(second.status).toBe(409)
      const error = errorOf(second)
      expect(error).toMatchObject({ code: "already_decided", retryable: false })
      expect(error.message).toBe(error.message_id)
      expect(error.docs).toMatch(/\/docs\/errors#already_decided$/)
      expect((await getPost(post.id)).status).toBe("queued")
    })

    it("lets exactly one of two simultaneous decisions win; the other gets already_decided", async () => {
      const post = await aPhotoPost(server, [image])
      const replies = await Promise.all([
        decide(server, tokenOf(post), { decision: "approve" }),
        decide(server, tokenOf(post), { decision: "reject" })
      ])
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409])
      const winner = replies.find((r) => r.status === 200)!
      const loser = replies.find((r) => r.status === 409)!
      expect(errorOf(loser).code).toBe("already_decided")
      const stored = await getPost(post.id)
      expect(stored.approval.status).toBe(winner.body.decision === "approve" ? "approved" : "rejected")
    })

    it("answers 409 consent_required naming a direct shortvideo target approved without consent", async () => {
      const post = await aDirectVideoPost(server, video)
      const target = post.targets[0].id
      const reply = await decide(server, tokenOf(post), { decision: "approve" })
      expect(reply.status).toBe(409)
      expect(errorOf(reply)).toMatchObject({ code: "consent_required", target_id: target, field: `consent.${target}` })
      expect((await getPost(post.id)).status).toBe("awaiting_approval")
    })

    it("approves a direct shortvideo target with the consent given", async () => {
      const post = await aDirectVideoPost(server, video)
      const target = post.targets[0].id
      const reply = await decide(server, tokenOf(post), {
        decision: "approve",
        consent: { [target]: { privacy_level: "FOLLOWER_OF_CREATOR", music_usage_confirmed: true, disable_duet: true } }
      })
      expect(reply.status).toBe(200)
      expect(reply.body.post.targets[0].status).toBe("queued")
    })

    it("answers 422 privacy_level_mismatch for a privacy level the creator does not offer", async () => {
      const privateOnly = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "shortvideo",
        sandbox: true,
        simulate: { privacy_level_options: ["SELF_ONLY"] }
      })
      const post = await aDirectVideoPost(server, video, {}, privateOnly.id)
      const target = post.targets[0].id
      const reply = await decide(server, tokenOf(post), {
        decision: "approve",
        consent: { [target]: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
      })
      expect(reply.status).toBe(422)
      expect(errorOf(reply)).toMatchObject({ code: "privacy_level_mismatch", target_id: target })
    })

    it("refuses consent that does not confirm music usage, naming the field", async () => {
      const post = await aDirectVideoPost(server, video)
      const target = post.targets[0].id
      const reply = await decide(server, tokenOf(post), {
        decision: "approve",
        consent: { [target]: { privacy_level: "SELF_ONLY", music_usage_confirmed: false } }
      })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: `consent.${target}.music_usage_confirmed` })
    })

    it("echoes an https redirect_url on an allowed domain or its subdomain", async () => {
      const post = await aPhotoPost(server, [image])
      const reply = await decide(server, tokenOf(post), { decision: "approve", redirect_url: "https://app.example.com/thanks" })
      expect(reply.status).toBe(200)
      expect(reply.body.redirect_url).toBe("https://app.example.com/thanks")
    })

    it("answers 400 invalid_redirect_url outside the workspace's allowed domains, and decides nothing", async () => {
      const post = await aPhotoPost(server, [image])
      for (const url of ["http://example.com/thanks", "https://example.org/", "https://notexample.com/", "https://example.com.evil.test/"]) {
        const reply = await decide(server, tokenOf(post), { decision: "approve", redirect_url: url })
        expect(reply.status, url).toBe(400)
        expect(errorOf(reply)).toMatchObject({ code: "invalid_redirect_url", field: "redirect_url" })
      }
      expect((await getPost(post.id)).approval.status).toBe("pending")
    })

    it("answers 404 not_found for a token that names no approval", async () => {
      const reply = await decide(server, "A".repeat(43), { decision: "approve" })
      expect(reply.status).toBe(404)
      expect(errorOf(reply).code).toBe("not_found")
    })

    it("answers 400 naming the field for a malformed decision", async () => {
      const post = await aPhotoPost(server, [image])
      const reply = await decide(server, tokenOf(post), { decision: "maybe" })
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "decision" })
      const typo = await decide(server, tokenOf(post), { decision: "approve", redirect: "https://example.com" })
      expect(errorOf(typo)).toMatchObject({ code: "invalid_request", field: "redirect" })
    })
  })

  describe("GET /approve/{token}", () => {
    it("serves the page with the post, in English, with a strict security policy", async () => {
      const post = await aPhotoPost(server, [image], { caption: "Summer <sale> starts now" })
      const page = await openPage(server, approvalPath(post))
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(page.html).toContain('<html lang="en">')
      expect(page.html).toContain("Summer &lt;sale&gt; starts now")
      expect(page.html).toContain("@sandbox-photo")
      expect(page.html).toContain(`/media/${image}`)
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(page.headers.get("content-security-policy")).not.toContain("unsafe-inline")
      expect(page.headers.get("referrer-policy")).toBe("no-referrer")
      expect(page.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Strict/)
    })

    it("speaks Indonesian for Accept-Language: id, and follows ?lang= over the header", async () => {
      const post = await aPhotoPost(server, [image])
      const id = await openPage(server, approvalPath(post), { "accept-language": "id-ID,id;q=0.9" })
      expect(id.html).toContain('<html lang="id">')
      expect(id.html).toContain("Tinjau unggahan ini sebelum diterbitkan")
      expect(id.html).toContain(">Setujui</button>")
      const en = await openPage(server, `${approvalPath(post)}?lang=en`, { "accept-language": "id" })
      expect(en.html).toContain(">Approve</button>")
    })

    it("shows the consent form TikTok requires for a direct shortvideo target, with no privacy chosen", async () => {
      const post = await aDirectVideoPost(server, video)
      const page = await openPage(server, approvalPath(post))
      expect(page.html).toContain("sandbox-shortvideo</strong>")
      expect(page.html).toContain('<option value="" selected>')
      expect(page.html).not.toMatch(/<option value="[A-Z_]+" selected/)
      expect(page.html).toContain("Music Usage Confirmation")
      expect(page.html).toMatch(/name="allow_comment\.[^"]+">/)
      expect(page.html).not.toMatch(/name="allow_comment\.[^"]+" checked/)
    })

    it("serves the post's media bytes to the page, in ranges too, and nothing once decided", async () => {
      const post = await aPhotoPost(server, [image])
      const path = `${approvalPath(post)}/media/${image}`
      const whole = await fetch(server.baseUrl + path)
      expect(whole.status).toBe(200)
      expect(whole.headers.get("content-type")).toBe("image/png")
      const bytes = new Uint8Array(await whole.arrayBuffer())
      expect(Array.from(bytes.subarray(1, 4))).toEqual([0x50, 0x4e, 0x47])
      const part = await fetch(server.baseUrl + path, { headers: { range: "bytes=1-3" } })
      expect(part.status).toBe(206)
      expect(part.headers.get("content-range")).toBe(`bytes 1-3/${bytes.length}`)
      expect(Array.from(new Uint8Array(await part.arrayBuffer()))).toEqual([0x50, 0x4e, 0x47])
      expect((await fetch(`${server.baseUrl}${approvalPath(post)}/media/${video}`)).status).toBe(404)
      await decide(server, tokenOf(post), { decision: "reject" })
      expect((await fetch(server.baseUrl + path)).status).toBe(404)
    })

    it("shows a clear page for an unknown link and for one already decided", async () => {
      const unknown = await openPage(server, `/approve/${"B".repeat(43)}`)
      expect(unknown.status).toBe(404)
      expect(unknown.html).toContain("This link does not work")
      expect(unknown.html).not.toMatch(/at .*\.ts:\d+/)
      const post = await aPhotoPost(server, [image])
      await decide(server, tokenOf(post), { decision: "approve" })
      const decided = await openPage(server, approvalPath(post), { "accept-language": "id" })
      expect(decided.status).toBe(200)
      expect(decided.html).toContain("Tautan ini sudah digunakan")
      expect(decided.html).not.toContain("<form")
    })

    it("refuses to show the page with a redirect_url outside the allowed domains", async () => {
      const post = await aPhotoPost(server, [image])
      const page = await openPage(server, `${approvalPath(post)}?redirect_url=${encodeURIComponent("https://evil.test/")}`)
      expect(page.status).toBe(400)
      expect(page.html).toContain("redirect_url must be https")
    })
  })

  describe("POST /approve/{token} (the page's form)", () => {
    it("approves and sends the person to redirect_url with a 303", async () => {
      const post = await aPhotoPost(server, [image])
      const redirect = "https://example.com/approved?post=1"
      const page = await openPage(server, `${approvalPath(post)}?redirect_url=${encodeURIComponent(redirect)}`)
      const response = await submitForm(
        server,
        approvalPath(post),
        { csrf: page.csrf, lang: "en", redirect_url: redirect, decision: "approve", reason: "" },
        page.cookie
      )
      expect(response.status).toBe(303)
      expect(response.headers.get("location")).toBe(redirect)
      expect((await getPost(post.id)).approval.status).toBe("approved")
    })

    it("rejects with a reason and shows the result page without a redirect_url", async () => {
      const post = await aPhotoPost(server, [image])
      const page = await openPage(server, approvalPath(post))
      const response = await submitForm(
        server,
        approvalPath(post),
        { csrf: page.csrf, lang: "id", decision: "reject", reason: "Logo salah" },
        page.cookie
      )
      expect(response.status).toBe(303)
      const location = response.headers.get("location")!
      expect(location).toBe(`${approvalPath(post)}/done?lang=id`)
      const result = await openPage(server, location)
      expect(result.html).toContain("Unggahan ditolak")
      expect((await getPost(post.id)).status).toBe("rejected")
    })

    it("drops a NUL character a form field should never carry, and still records the decision", async () => {
      const post = await aPhotoPost(server, [image])
      const page = await openPage(server, approvalPath(post))
      const response = await submitForm(
        server,
        approvalPath(post),
        { csrf: page.csrf, lang: "en", decision: "reject", reason: "Wrong\0 logo" },
        page.cookie
      )
      expect(response.status).toBe(303)
      expect((await getPost(post.id)).status).toBe("rejected")
    })

    it("refuses a form without its anti-forgery token, or from another site, and decides nothing", async () => {
      const post = await aPhotoPost(server, [image])
      const page = await openPage(server, approvalPath(post))
      const noCookie = await submitForm(server, approvalPath(post), { csrf: page.csrf, decision: "approve" }, "")
      expect(noCookie.status).toBe(403)
      expect(await noCookie.text()).toContain("This form has expired")
      const forged = await submitForm(server, approvalPath(post), { csrf: "forged", decision: "approve" }, page.cookie)
      expect(forged.status).toBe(403)
      const crossSite = await submitForm(server, approvalPath(post), { csrf: page.csrf, decision: "approve" }, page.cookie, {
        origin: "https://evil.test"
      })
      expect(crossSite.status).toBe(403)
      expect((await getPost(post.id)).approval.status).toBe("pending")
    })

    it("asks again for what the consent form is missing, keeping the choices made", async () => {
      const post = await aDirectVideoPost(server, video)
      const target = post.targets[0].id
      const page = await openPage(server, approvalPath(post))
      const response = await submitForm(
        server,
        approvalPath(post),
        { csrf: page.csrf, lang: "en", decision: "approve", declaration: "music", [`allow_duet.${target}`]: "on" },
        page.cookie
      )
      expect(response.status).toBe(422)
      const html = await response.text()
      expect(html).toContain("Please fix the following")
      expect(html).toContain("Choose who can see the video on @sandbox-shortvideo")
      expect(html).toMatch(new RegExp(`name="allow_duet\\.${target}" checked`))
      expect((await getPost(post.id)).approval.status).toBe("pending")
    })

    it("refuses branded content with commercial disclosure but no brand chosen, and private branded content", async () => {
      const post = await aDirectVideoPost(server, video)
      const target = post.targets[0].id
      const page = await openPage(server, approvalPath(post))
      const base = { csrf: page.csrf, lang: "en", decision: "approve", declaration: "branded" }
      const none = await submitForm(
        server,
        approvalPath(post),
        { ...base, declaration: "music", [`privacy_level.${target}`]: "PUBLIC_TO_EVERYONE", [`disclose.${target}`]: "on" },
        page.cookie
      )
      expect(none.status).toBe(422)
      expect(await none.text()).toContain("choose “Your brand”, “Branded content” or both")
      const privateBranded = await submitForm(
        server,
        approvalPath(post),
        {
          ...base,
          [`privacy_level.${target}`]: "SELF_ONLY",
          [`disclose.${target}`]: "on",
          [`branded_content.${target}`]: "on"
        },
        page.cookie
      )
      expect(privateBranded.status).toBe(422)
      expect(await privateBranded.text()).toContain("Branded content cannot be private")
    })

    it("shows the Branded Content Policy before approving branded content", async () => {
      const post = await aDirectVideoPost(server, video)
      const target = post.targets[0].id
      const page = await openPage(server, approvalPath(post))
      const choices = {
        csrf: page.csrf,
        lang: "en",
        decision: "approve",
        [`privacy_level.${target}`]: "PUBLIC_TO_EVERYONE",
        [`disclose.${target}`]: "on",
        [`branded_content.${target}`]: "on"
      }
      // The page showed the music declaration only: the person has not seen the branded one yet.
      const unseen = await submitForm(server, approvalPath(post), { ...choices, declaration: "music" }, page.cookie)
      expect(unseen.status).toBe(422)
      const html = await unseen.text()
      expect(html).toMatch(/<p data-declaration="branded">[^<]*<a [^>]*>Branded Content Policy<\/a>/)
      const seen = await submitForm(server, approvalPath(post), { ...choices, declaration: "branded" }, page.cookie)
      expect(seen.status).toBe(303)
      const stored = await getPost(post.id)
      expect(stored.targets[0].status).toBe("queued")
    })
  })

  describe("approval e-mail", () => {
    it("writes the link to the data directory when no SMTP server is set", async () => {
      const post = await aPhotoPost(server, [image], {
        caption: "Mail me",
        approval: { notify: { email: "approver@example.com", locale: "id" } }
      })
      const dir = join(server.dataDir, "mail")
      const files = readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8"))
      const mail = files.find((f) => f.includes(post.approval.url))
      expect(mail).toBeDefined()
      expect(mail).toContain("To: approver@example.com")
      expect(mail).toContain("Sebuah unggahan menunggu persetujuan Anda")
    })
  })
})

describe("approval links over time", () => {
  let server: TestServer
  const time = aMovableClock()
  let image: string
  beforeAll(async () => {
    server = await startServer("embedded", {}, { clock: time.clock })
    image = await anImage(server)
  })
  afterAll(() => server?.stop())

  it("expire after seven days: 410 approval_expired, and a page that says so", async () => {
    const post = await aPhotoPost(server, [image])
    time.advance(7 * day + 60_000)
    const reply = await decide(server, tokenOf(post), { decision: "approve" })
    expect(reply.status).toBe(410)
    expect(errorOf(reply)).toMatchObject({ code: "approval_expired", retryable: false })
    const page = await openPage(server, approvalPath(post))
    expect(page.status).toBe(410)
    expect(page.html).toContain("This link has expired")
    const detail = await call(server.baseUrl, "GET", `/v1/posts/${post.id}`, { key: server.testKey })
    expect(detail.body.approval.status).toBe("expired")
  })
})

describe("approval e-mail over SMTP", () => {
  it("sends the link through POSTWIRE_SMTP_URL in notify.locale", async () => {
    const smtp = await aFakeSmtpServer()
    const server = await startServer("embedded", { POSTWIRE_SMTP_URL: smtp.url, POSTWIRE_MAIL_FROM: "Acme <approvals@acme.test>" })
    try {
      const image = await anImage(server)
      const post = await aPhotoPost(server, [image], { approval: { notify: { email: "boss@acme.test", locale: "id" } } })
      expect(smtp.messages).toHaveLength(1)
      const mail = readableMail(smtp.messages[0]!)
      expect(mail).toMatch(/^From: Acme <approvals@acme\.test>/m)
      expect(mail).toMatch(/^To: boss@acme\.test/m)
      expect(mail).toContain(post.approval.url)
      expect(mail).toContain("Tinjau lalu setujui atau tolak di sini")
    } finally {
      await server.stop()
      await smtp.close()
    }
  })

  it("still creates the post when the mail server cannot be reached", async () => {
    const smtp = await aFakeSmtpServer()
    await smtp.close()
    const server = await startServer("embedded", { POSTWIRE_SMTP_URL: smtp.url })
    try {
      const image = await anImage(server)
      const reply = await call(server.baseUrl, "POST", "/v1/posts", {
        key: server.testKey,
        body: aPost(server, [image], { approval: { notify: { email: "boss@acme.test" } } })
      })
      expect(reply.status).toBe(201)
      expect(reply.body.status).toBe("awaiting_approval")
    } finally {
      await server.stop()
    }
  })
})

describe("approval e-mail settings", () => {
  it("send from no-reply at the public host by default, and take POSTWIRE_SMTP_URL and POSTWIRE_MAIL_FROM", () => {
    expect(resolveSettings({}, { POSTWIRE_PUBLIC_URL: "https://posts.acme.test" })).toMatchObject({
      smtpUrl: undefined,
      mailFrom: "Postwire <no-reply@posts.acme.test>"
    })
    expect(
      resolveSettings({}, { POSTWIRE_SMTP_URL: "smtps://user:pw@mail.acme.test:465", POSTWIRE_MAIL_FROM: "approvals@acme.test" })
    ).toMatchObject({ smtpUrl: "smtps://user:pw@mail.acme.test:465", mailFrom: "approvals@acme.test" })
  })

  it("stop the start with a message naming a bad value", () => {
    expect(() => resolveSettings({}, { POSTWIRE_SMTP_URL: "https://mail.acme.test" })).toThrow(ConfigProblem)
    expect(() => resolveSettings({}, { POSTWIRE_SMTP_URL: "mail.acme.test" })).toThrow("POSTWIRE_SMTP_URL")
    expect(() => resolveSettings({}, { POSTWIRE_MAIL_FROM: "not an address" })).toThrow("POSTWIRE_MAIL_FROM")
  })
})

describe("the consent form of the approval page", () => {
  const target = "tgt_01TESTTARGET0000000000000"
  const creator: CreatorInfo = {
    nickname: "Kopi Kenangan",
    username: "kopikenangan",
    privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "SELF_ONLY"],
    commentDisabled: true,
    duetDisabled: false,
    stitchDisabled: false,
    maxVideoPostDurationSec: 60
  }
  const aSummary = (consentForm: Approvals.ConsentForm): Approvals.PageSummary => ({
    approval: {
      id: Id.unchecked("approval", "apr_01TEST"),
      workspaceId: Id.unchecked("workspace", "ws_1"),
      postId: Id.unchecked("post", "post_1"),
      tokenHash: "x",
      status: "pending",
      expiresAt: Date.UTC(2030, 0, 8),
      decidedAt: null,
      reason: null,
      createdAt: Date.UTC(2030, 0, 1)
    },
    post: aPostRecord({
      id: Id.unchecked("post", "post_1"),
      workspaceId: Id.unchecked("workspace", "ws_1"),
      profileId: Id.unchecked("profile", "prof_1"),
      caption: "Es kopi susu",
      approvalMode: "link",
      status: "awaiting_approval",
      publishAt: Date.UTC(2030, 0, 1),
      createdAt: Date.UTC(2030, 0, 1),
      updatedAt: Date.UTC(2030, 0, 1)
    }),
    media: [],
    targets: [
      {
        target: aTargetRecord({
          id: Id.unchecked("target", target),
          workspaceId: Id.unchecked("workspace", "ws_1"),
          postId: Id.unchecked("post", "post_1"),
          accountId: Id.unchecked("account", "acc_1"),
          platform: "shortvideo",
          status: "awaiting_approval",
          options: { shortvideo: { mode: "direct" } },
          updatedAt: Date.UTC(2030, 0, 1)
        }),
        account: anAccountRecord({
          id: Id.unchecked("account", "acc_1"),
          workspaceId: Id.unchecked("workspace", "ws_1"),
          profileId: Id.unchecked("profile", "prof_1"),
          platform: "shortvideo",
          handle: "kopi",
          sandbox: true,
          createdAt: 0
        }),
        consentForm
      }
    ]
  })
  const ctx = { locale: "en" as const, path: "/approve/tok", redirectUrl: undefined, nonce: "n" }
  const ready = aSummary({ _tag: "Ready", creator })

  it("offers only the creator's privacy levels, none chosen, and greys out what the creator turned off", () => {
    const html = ApprovalView.renderPending(ctx, ready, ApprovalForm.emptyForm("c"))
    expect(html).toContain("<strong>Kopi Kenangan</strong>")
    expect(html.match(/<option value="[A-Z_]+"/g)).toEqual(['<option value="PUBLIC_TO_EVERYONE"', '<option value="SELF_ONLY"'])
    expect(html).toContain('<option value="" selected>Choose…</option>')
    expect(html).toMatch(new RegExp(`id="comment-${target}" name="allow_comment\\.${target}" disabled`))
    expect(html).toContain("Turned off in this creator&#39;s TikTok settings.")
    expect(html).toMatch(new RegExp(`id="duet-${target}" name="allow_duet\\.${target}">`))
  })

  it("turns the choices into consent: switches off unless turned on, and off where the creator disabled them", () => {
    const form = ApprovalForm.readForm(
      {
        decision: "approve",
        declaration: "music",
        [`privacy_level.${target}`]: "PUBLIC_TO_EVERYONE",
        [`allow_comment.${target}`]: "on",
        [`allow_stitch.${target}`]: "on"
      },
      ready,
      "en"
    )
    expect(form.problems).toEqual([])
    expect(form.consent[target]).toEqual({
      privacy_level: "PUBLIC_TO_EVERYONE",
      music_usage_confirmed: true,
      disable_comment: true,
      disable_duet: true,
      disable_stitch: false,
      brand_organic: false,
      branded_content: false
    })
  })

  it("asks for a privacy level the creator offers, a brand when disclosing, and no private branded content", () => {
    const check = (fields: Record<string, string>) =>
      ApprovalForm.readForm({ decision: "approve", declaration: "music", ...fields }, ready, "id").problems.map((p) => p.message)
    expect(check({})).toEqual(["Pilih siapa yang dapat melihat video di @kopi."])
    expect(check({ [`privacy_level.${target}`]: "FOLLOWER_OF_CREATOR" })).toHaveLength(1)
    expect(check({ [`privacy_level.${target}`]: "SELF_ONLY", [`disclose.${target}`]: "on" })[0]).toContain("Merek Anda")
    expect(
      check({
        [`privacy_level.${target}`]: "SELF_ONLY",
        [`disclose.${target}`]: "on",
        [`branded_content.${target}`]: "on",
        declaration: "branded"
      })[0]
    ).toContain("Konten bermerek tidak dapat dibuat privat")
    expect(ApprovalForm.readForm({ decision: "reject" }, ready, "en").problems).toEqual([])
  })

  it("shows why TikTok cannot take the video instead of the form, and disables Approve", () => {
    const blocked = aSummary({
      _tag: "Unavailable",
      error: new PostwireError({ code: "media_too_long", targetId: target, details: { duration: 90, limit: 60 } })
    })
    const html = ApprovalView.renderPending({ ...ctx, locale: "id" }, blocked, ApprovalForm.emptyForm("c"))
    expect(html).toContain("Video berdurasi 90 detik; akun ini mengizinkan paling lama 60 detik.")
    expect(html).toContain('value="approve" disabled')
    expect(html).not.toContain("<select")
  })
})
