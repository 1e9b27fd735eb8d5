import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anotherWorkspace, aPost, aVideo, anImage } from "../support/Builders.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("posts API on %s", (backend) => {
  let server: TestServer
  let image: string
  let video: string
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    call(server.baseUrl, "POST", path, { key: server.testKey, body, ...(headers ? { headers } : {}) })
  const get = (path: string, headers?: Record<string, string>) =>
    call(server.baseUrl, "GET", path, { key: server.testKey, ...(headers ? { headers } : {}) })

  beforeAll(async () => {
    server = await startServer(backend)
    image = await anImage(server)
    video = await aVideo(server, 12)
  })
  afterAll(() => server?.stop())

  describe("POST /v1/posts", () => {
    it("puts every target in awaiting_approval and returns an approval link by default", async () => {
      const reply = await post("/v1/posts", aPost(server, [image]))
      expect(reply.status).toBe(201)
      expect(reply.body.id).toMatch(/^post_[0-9A-Z]{26}$/)
      expect(reply.body.status).toBe("awaiting_approval")
      expect(reply.body.targets).toHaveLength(1)
      expect(reply.body.targets[0]).toMatchObject({ account_id: accountOf(server, "photo"), status: "awaiting_approval" })
      expect(reply.body.targets[0].id).toMatch(/^tgt_/)
      expect(reply.body.approval.id).toMatch(/^apr_/)
      expect(reply.body.approval.url).toMatch(/\/approve\/[A-Za-z0-9_-]{43}$/)
      expect(Date.parse(reply.body.approval.expires_at) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000)
      expect(reply.body.approval.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(reply.body.warnings).toEqual([])
    })

    it("queues targets straight away when approval is off", async () => {
      const reply = await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" } }))
      expect(reply.status).toBe(201)
      expect(reply.body.status).toBe("queued")
      expect(reply.body.approval).toBeUndefined()
    })

    it("schedules targets whose scheduled_at is in the future, with the instant normalized to UTC", async () => {
      const at = new Date(Date.now() + 3 * 3600 * 1000)
      const withOffset = `${new Date(at.getTime() + 7 * 3600 * 1000).toISOString().slice(0, 19)}+07:00`
      const reply = await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" }, scheduled_at: withOffset }))
      expect(reply.status).toBe(201)
      expect(reply.body.status).toBe("scheduled")
      expect(Date.parse(reply.body.scheduled_at)).toBe(Date.parse(withOffset))
      expect(reply.body.scheduled_at.endsWith("Z")).toBe(true)
    })

    it("rejects a scheduled_at without a UTC offset, naming the field", async () => {
      const reply = await post("/v1/posts", aPost(server, [image], { scheduled_at: "2030-01-01T10:00:00" }))
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "scheduled_at", retryable: false })
    })

    it("rejects a scheduled_at on a day the month does not have, instead of rolling it into March", async () => {
      const reply = await post("/v1/posts", aPost(server, [image], { scheduled_at: "2030-02-30T10:00:00Z" }))
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "scheduled_at" })
    })

    it("refuses a direct shortvideo post without consent when approval is off, and creates nothing", async () => {
      const before = await get("/v1/posts?limit=100")
      const reply = await post(
        "/v1/posts",
        aPost(server, [video], {
          targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }],
          approval: { mode: "none" }
        })
      )
      expect(reply.status).toBe(422)
      const error = errorOf(reply)
      expect(error.code).toBe("consent_required")
      expect(error.field).toBe("targets[0].shortvideo.consent")
      expect(error.message).toContain('approval.mode "link"')
      expect(error.message).toContain('shortvideo.mode "inbox"')
      const after = await get("/v1/posts?limit=100")
      expect(after.body.data.length).toBe(before.body.data.length)
    })

    it("routes a direct shortvideo target without consent into approval when approval uses a link", async () => {
      const reply = await post(
        "/v1/posts",
        aPost(server, [video], { targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }] })
      )
      expect(reply.status).toBe(201)
      expect(reply.body.targets[0].status).toBe("awaiting_approval")
      expect(reply.body.approval.url).toContain("/approve/")
    })

    it("queues a direct shortvideo target that carries consent when approval is off", async () => {
      const reply = await post(
        "/v1/posts",
        aPost(server, [video], {
          targets: [
            {
              account_id: accountOf(server, "shortvideo"),
              shortvideo: { mode: "direct", consent: { privacy_level: "SELF_ONLY", music_usage_confirmed: true } }
            }
          ],
          approval: { mode: "none" },
          ai_generated: true
        })
      )
      expect(reply.status).toBe(201)
      expect(reply.body.targets[0].status).toBe("queued")
      expect(reply.body.ai_generated).toBe(true)
    })

    it("refuses consent whose music usage is not confirmed", async () => {
      const reply = await post(
        "/v1/posts",
        aPost(server, [video], {
          targets: [
            {
              account_id: accountOf(server, "shortvideo"),
              shortvideo: { mode: "direct", consent: { privacy_level: "SELF_ONLY", music_usage_confirmed: false } }
            }
          ],
          approval: { mode: "none" }
        })
      )
      expect(reply.status).toBe(400)
      expect(errorOf(reply).field).toBe("targets[0].shortvideo.consent.music_usage_confirmed")
    })

    it("answers 403 account_forbidden for an account of another workspace", async () => {
      const other = await anotherWorkspace(server)
      const reply = await post("/v1/posts", aPost(server, [image], { targets: [{ account_id: other.accountId }] }))
      expect(reply.status).toBe(403)
      expect(errorOf(reply)).toMatchObject({ code: "account_forbidden", field: "targets[0].account_id" })
    })

    it("answers 403 test_key_live_account when a test key targets a live account", async () => {
      const live = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "textpost",
        sandbox: false
      })
      const reply = await post("/v1/posts", aPost(server, [image], { targets: [{ account_id: live.id }] }))
      expect(reply.status).toBe(403)
      expect(errorOf(reply)).toMatchObject({ code: "test_key_live_account", field: "targets[0].account_id" })
    })

    it("answers 422 quota_exceeded once an account's daily limit is used", async () => {
      const limited = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "photo",
        sandbox: true,
        daily_quota: 2
      })
      const body = aPost(server, [image], { targets: [{ account_id: limited.id }], approval: { mode: "none" } })
      expect((await post("/v1/posts", body)).status).toBe(201)
      expect((await post("/v1/posts", body)).status).toBe(201)
      const third = await post("/v1/posts", body)
      expect(third.status).toBe(422)
      expect(errorOf(third)).toMatchObject({ code: "quota_exceeded", field: "targets[0].account_id", retryable: true })
      const account = await get(`/v1/accounts/${limited.id}`)
      expect(account.body.quota).toMatchObject({ used: 2, limit: 2 })
      expect(Date.parse(account.body.quota.resets_at)).toBeGreaterThan(Date.now())
    })

    it("names every missing and unknown field", async () => {
      const reply = await post("/v1/posts", { caption: "x", media: [image], targets: [], surprise: true })
      expect(reply.status).toBe(400)
      const error = errorOf(reply)
      expect(error.code).toBe("invalid_request")
      const fields = [error.field, ...(error.issues ?? []).map((i) => i.field)]
      expect(fields).toContain("profile_id")
      expect(fields).toContain("surprise")
    })

    it("answers a body that is not JSON with 400 invalid_request", async () => {
      const reply = await post("/v1/posts", "{not json")
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "invalid_request", field: "body" })
    })

    it("answers an unknown media id with media_not_found naming media[i]", async () => {
      const reply = await post("/v1/posts", aPost(server, [image, "med_00000000000000000000000000"]))
      expect(reply.status).toBe(400)
      expect(errorOf(reply)).toMatchObject({ code: "media_not_found", field: "media[1]" })
    })

    it("checks the caption against each platform's limit", async () => {
      const reply = await post(
        "/v1/posts",
        aPost(server, [image], { caption: "x".repeat(501), targets: [{ account_id: accountOf(server, "textpost") }] })
      )
      expect(reply.status).toBe(422)
      expect(errorOf(reply)).toMatchObject({ code: "caption_too_long", field: "caption" })
    })

    it("refuses a video longer than the account allows with media_too_long", async () => {
      const capped = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "shortvideo",
        sandbox: true,
        simulate: { max_video_duration_sec: 10 }
      })
      const reply = await post(
        "/v1/posts",
        aPost(server, [video], { targets: [{ account_id: capped.id, shortvideo: { mode: "inbox" } }] })
      )
      expect(reply.status).toBe(422)
      expect(errorOf(reply)).toMatchObject({ code: "media_too_long", retryable: false })
    })
  })

  describe("POST /v1/posts/validate", () => {
    it("returns every issue in the shared shape and saves nothing", async () => {
      const before = await get("/v1/posts?limit=100")
      const reply = await post(
        "/v1/posts/validate",
        aPost(server, [video], {
          caption: "y".repeat(600),
          targets: [
            { account_id: accountOf(server, "textpost") },
            { account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }
          ],
          approval: { mode: "none" }
        })
      )
      expect(reply.status).toBe(200)
      const codes = reply.body.issues.map((i: { code: string }) => i.code)
      expect(codes).toContain("caption_too_long")
      expect(codes).toContain("consent_required")
      for (const issue of reply.body.issues) {
        expect(issue).toMatchObject({ message: expect.any(String), message_id: expect.any(String), retryable: false })
        expect(issue.docs).toMatch(new RegExp(`/docs/errors#${issue.code}$`))
      }
      const after = await get("/v1/posts?limit=100")
      expect(after.body.data.length).toBe(before.body.data.length)
    })

    it("returns no issues for a valid post", async () => {
      const reply = await post("/v1/posts/validate", aPost(server, [image]))
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ issues: [] })
    })
  })

  describe("GET /v1/posts/{id}", () => {
    it("returns the post with each target, its permalink and error", async () => {
      const created = await post("/v1/posts", aPost(server, [image]))
      const reply = await get(`/v1/posts/${created.body.id}`)
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({
        id: created.body.id,
        profile_id: server.profileId,
        caption: "Hello from Postwire",
        media: [image],
        status: "awaiting_approval",
        scheduled_at: null,
        ai_generated: false,
        approval: { id: created.body.approval.id, status: "pending", url: created.body.approval.url, decided_at: null }
      })
      expect(reply.body.targets[0]).toMatchObject({
        platform: "photo",
        permalink: null,
        published_at: null,
        error: null,
        attempts: 0,
        options: { photo: { type: "feed" } }
      })
    })

    it("shows the consent given with the approval decision in the target's options, until a caption change asks again", async () => {
      const created = await post(
        "/v1/posts",
        aPost(server, [video], {
          targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }],
          scheduled_at: new Date(Date.now() + 86_400_000).toISOString()
        })
      )
      const target = created.body.targets[0].id
      const approve = (approval: { url: string }, consent: unknown) =>
        call(server.baseUrl, "POST", `/v1/approvals/${new URL(approval.url).pathname.split("/").pop()}/decision`, {
          body: { decision: "approve", consent: { [target]: consent } }
        })
      const first = { privacy_level: "FOLLOWER_OF_CREATOR", music_usage_confirmed: true, disable_duet: true }
      const second = { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true }
      expect(created.body.targets[0].options).toEqual({ shortvideo: { mode: "direct" } })

      expect((await approve(created.body.approval, first)).status).toBe(200)
      const approved = await get(`/v1/posts/${created.body.id}`)
      const edited = await call(server.baseUrl, "PATCH", `/v1/posts/${created.body.id}`, {
        key: server.testKey,
        body: { caption: "Edited after approval" }
      })
      const reapproved = await approve(edited.body.approval, second)
      const final = await get(`/v1/posts/${created.body.id}`)

      expect(approved.body.targets[0].options).toEqual({ shortvideo: { mode: "direct", consent: first } })
      expect(edited.body.status).toBe("awaiting_approval")
      expect(edited.body.targets[0].options).toEqual({ shortvideo: { mode: "direct" } })
      expect(reapproved.status).toBe(200)
      expect(reapproved.body.post.targets[0].options).toEqual({ shortvideo: { mode: "direct", consent: second } })
      expect(final.body.targets[0].options).toEqual({ shortvideo: { mode: "direct", consent: second } })
    })

    it("shows the consent given with the request in the target's options", async () => {
      const consent = { privacy_level: "SELF_ONLY", music_usage_confirmed: true }
      const created = await post(
        "/v1/posts",
        aPost(server, [video], {
          targets: [{ account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct", consent } }],
          scheduled_at: new Date(Date.now() + 86_400_000).toISOString()
        })
      )
      const reply = await get(`/v1/posts/${created.body.id}`)

      expect(reply.body.targets[0].options).toEqual({ shortvideo: { mode: "direct", consent } })
    })

    it("answers 404 not_found for a post of another workspace", async () => {
      const created = await post("/v1/posts", aPost(server, [image]))
      const other = await anotherWorkspace(server)
      const reply = await call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: other.key })
      expect(reply.status).toBe(404)
      expect(errorOf(reply).code).toBe("not_found")
    })
  })

  describe("GET /v1/posts", () => {
    it("pages through every post once, newest first, following cursor.next", async () => {
      const other = await anotherWorkspace(server)
      const otherImage = await anImage(server, other.key)
      const created: Array<string> = []
      for (let i = 0; i < 7; i++) {
        const r = await call(server.baseUrl, "POST", "/v1/posts", {
          key: other.key,
          body: { profile_id: other.profileId, caption: `n${i}`, media: [otherImage], targets: [{ account_id: other.accountId }] }
        })
        created.push(r.body.id)
      }
      const seen: Array<string> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const query: string = cursor === null ? "?limit=3" : `?limit=3&cursor=${encodeURIComponent(cursor)}`
        const page = await call(server.baseUrl, "GET", `/v1/posts${query}`, { key: other.key })
        expect(page.status).toBe(200)
        seen.push(...page.body.data.map((p: { id: string }) => p.id))
        expect(page.body.cursor.has_more).toBe(page.body.cursor.next !== null)
        cursor = page.body.cursor.next
        pages++
      } while (cursor !== null)
      expect(pages).toBe(3)
      expect(seen).toEqual([...created].reverse())
    })

    it("binds a cursor to its filters and refuses a tampered one", async () => {
      for (let i = 0; i < 3; i++) await post("/v1/posts", aPost(server, [image]))
      const first = await get("/v1/posts?limit=1&status=awaiting_approval")
      const next = first.body.cursor.next as string
      expect(typeof next).toBe("string")
      const replayed = await get(`/v1/posts?limit=1&cursor=${encodeURIComponent(next)}`)
      expect(replayed.status).toBe(400)
      expect(errorOf(replayed).code).toBe("invalid_cursor")
      const tampered = `${next.slice(0, 5)}${next[5] === "A" ? "B" : "A"}${next.slice(6)}`
      const bad = await get(`/v1/posts?limit=1&status=awaiting_approval&cursor=${encodeURIComponent(tampered)}`)
      expect(bad.status).toBe(400)
      expect(errorOf(bad).code).toBe("invalid_cursor")
      const good = await get(`/v1/posts?limit=1&status=awaiting_approval&cursor=${encodeURIComponent(next)}`)
      expect(good.status).toBe(200)
    })

    it("filters by status, platform and profile", async () => {
      await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" }, targets: [{ account_id: accountOf(server, "pages") }] }))
      const queued = await get("/v1/posts?status=queued&limit=100")
      expect(queued.body.data.length).toBeGreaterThan(0)
      expect(queued.body.data.every((p: { status: string }) => p.status === "queued")).toBe(true)
      const pages = await get("/v1/posts?platform=pages&limit=100")
      expect(pages.body.data.length).toBeGreaterThan(0)
      for (const p of pages.body.data) {
        expect(p.targets.some((t: { platform: string }) => t.platform === "pages")).toBe(true)
      }
      const none = await get("/v1/posts?profile_id=prof_00000000000000000000000000")
      expect(none.body).toEqual({ data: [], cursor: { next: null, has_more: false } })
    })

    it("answers invalid_range when to is not after from, or the range exceeds 92 days", async () => {
      const backwards = await get("/v1/posts?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z")
      expect(backwards.status).toBe(400)
      expect(errorOf(backwards).code).toBe("invalid_range")
      const long = await get("/v1/posts?from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z")
      expect(long.status).toBe(400)
      expect(errorOf(long).code).toBe("invalid_range")
    })

    it("answers a limit outside 1 to 100 and unknown query parameters with invalid_request", async () => {
      expect(errorOf(await get("/v1/posts?limit=0")).field).toBe("limit")
      expect(errorOf(await get("/v1/posts?limit=101")).field).toBe("limit")
      expect(errorOf(await get("/v1/posts?colour=red")).field).toBe("colour")
    })
  })

  describe("PATCH, cancel and retry", () => {
    it("updates the caption and schedule while nothing has published", async () => {
      const created = await post("/v1/posts", aPost(server, [image], { approval: { mode: "none" } }))
      const when = new Date(Date.now() + 86_400_000).toISOString()
      const reply = await call(server.baseUrl, "PATCH", `/v1/posts/${created.body.id}`, {
        key: server.testKey,
        body: { caption: "Edited", scheduled_at: when }
      })
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ caption: "Edited", scheduled_at: when, status: "scheduled" })
      const back = await call(server.baseUrl, "PATCH", `/v1/posts/${created.body.id}`, {
        key: server.testKey,
        body: { scheduled_at: null }
      })
      expect(back.body).toMatchObject({ scheduled_at: null, status: "queued" })
    })

    it("cancels every unpublished target, then refuses a second cancel and edits with invalid_state", async () => {
      const created = await post("/v1/posts", aPost(server, [image]))
      const cancelled = await post(`/v1/posts/${created.body.id}/cancel`, undefined)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.status).toBe("cancelled")
      expect(cancelled.body.targets.every((t: { status: string }) => t.status === "cancelled")).toBe(true)
      const again = await post(`/v1/posts/${created.body.id}/cancel`, undefined)
      expect(again.status).toBe(409)
      expect(errorOf(again).code).toBe("invalid_state")
      const edit = await call(server.baseUrl, "PATCH", `/v1/posts/${created.body.id}`, {
        key: server.testKey,
        body: { caption: "too late" }
      })
      expect(edit.status).toBe(409)
      expect(errorOf(edit).code).toBe("invalid_state")
    })

    it("refuses a retry when no target failed with a retryable error", async () => {
      const created = await post("/v1/posts", aPost(server, [image]))
      const reply = await post(`/v1/posts/${created.body.id}/retry`, undefined)
      expect(reply.status).toBe(409)
      expect(errorOf(reply).code).toBe("invalid_state")
    })
  })
})
