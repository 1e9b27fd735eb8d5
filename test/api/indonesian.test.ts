/**
 * Error messages in Indonesian, end to end: `message_id` is Indonesian throughout (details
 * included), and `message` follows `Accept-Language`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anImage, aPost } from "../support/Builders.ts"
import { call, errorOf, type Reply } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

/** English words that would betray a half-translated Indonesian message. */
const englishWord =
  /(^|[^\p{L}_.-])(must|the|is|are|not|a|an|of|to|with|and|or|at|be|no|required|expected|known|field|after|appears|twice|needs|takes|it|its|could|does|simulated|failure|answered)(?=$|[^\p{L}_.-])/iu
/** Indonesian words that have no place in an English message. */
const indonesianWord = /(^|[^\p{L}])(tidak|harus|wajib|yang|pada|untuk|dengan|dari|unggahan|alamat|berupa)(?=$|[^\p{L}])/iu

/** A message without its identifiers: `code spans` and "quoted values" are the same in every language. */
const prose = (message: string) => message.replace(/`[^`]*`|"[^"]*"/g, "")

/** An error in the shared shape, as far as its texts go. */
interface Texts {
  readonly message: string
  readonly message_id: string
}

/** Asserts that `indonesian` and `english` are the same error, each message wholly in its language. */
const expectBilingual = (indonesian: Texts, english: Texts) => {
  expect(indonesian.message).toBe(indonesian.message_id)
  expect(english.message_id).toBe(indonesian.message_id)
  expect(english.message).not.toBe(english.message_id)
  expect(prose(indonesian.message_id), indonesian.message_id).not.toMatch(englishWord)
  expect(prose(english.message), english.message).not.toMatch(indonesianWord)
}

describe.each(backends())("Indonesian error messages on %s", (backend) => {
  let server: TestServer
  let receiver: Receiver
  let image: string

  const send = (language: string, method: string, path: string, body?: unknown): Promise<Reply> =>
    call(server.baseUrl, method, path, {
      key: server.testKey,
      headers: { "accept-language": language },
      ...(body === undefined ? {} : { body })
    })

  /** Sends the same failing request in Indonesian and in English; returns both errors after checking them. */
  const refusedInBoth = async (method: string, path: string, body?: unknown) => {
    const indonesian = await send("id-ID,id;q=0.9,en;q=0.8", method, path, body)
    const english = await send("en-US", method, path, body)
    expect(indonesian.status).toBe(english.status)
    expect(indonesian.status).toBeGreaterThanOrEqual(400)
    const id = errorOf(indonesian)
    const en = errorOf(english)
    expectBilingual(id, en)
    return { status: indonesian.status, id, en }
  }

  beforeAll(async () => {
    server = await startServer(backend, {
      POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1",
      POSTWIRE_PUBLISH_POLL_MS: "50",
      POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
    })
    receiver = await aReceiver()
    image = await anImage(server)
  })
  afterAll(async () => {
    await receiver?.close()
    await server?.stop()
  })

  it("says a missing field is required", async () => {
    const { caption: _, ...withoutCaption } = aPost(server, [image])
    const { id, en } = await refusedInBoth("POST", "/v1/posts", withoutCaption)
    expect(id).toMatchObject({ code: "invalid_request", field: "caption" })
    expect(id.message_id).toBe("Permintaan tidak valid pada caption: wajib diisi")
    expect(en.message).toBe("The request is invalid at caption: is required")
  })

  it("says a field has the wrong type", async () => {
    const { id, en } = await refusedInBoth("POST", "/v1/posts", aPost(server, [image], { caption: 42 }))
    expect(id.message_id).toBe("Permintaan tidak valid pada caption: harus berupa teks")
    expect(en.message).toBe("The request is invalid at caption: must be a string")
  })

  it("says a field is unknown", async () => {
    const { id, en } = await refusedInBoth("POST", "/v1/posts", aPost(server, [image], { surprise: true }))
    expect(id.field).toBe("surprise")
    expect(id.message_id).toBe("Permintaan tidak valid pada surprise: bukan kolom yang dikenal")
    expect(en.message).toBe("The request is invalid at surprise: is not a known field")
  })

  it("says an id lacks its prefix and a value is not one of the allowed ones", async () => {
    const { id } = await refusedInBoth(
      "POST",
      "/v1/posts",
      aPost(server, [image], { targets: [{ account_id: "nope", photo: { type: "square" } }] })
    )
    const issues = id.issues ?? [id]
    expect(issues.map((i) => [i.field, i.message_id])).toEqual(
      expect.arrayContaining([
        ["targets[0].account_id", 'Permintaan tidak valid pada targets[0].account_id: harus berupa id yang diawali "acc_"'],
        ["targets[0].photo.type", 'Permintaan tidak valid pada targets[0].photo.type: harus salah satu dari "reel", "feed", "story"']
      ])
    )
  })

  it("says `to` must come after `from` (invalid_range)", async () => {
    const { id, en } = await refusedInBoth("GET", "/v1/posts?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z")
    expect(id.code).toBe("invalid_range")
    expect(id.message_id).toBe("Rentang tanggal tidak valid: `to` harus lebih lambat dari `from`")
    expect(en.message).toBe("The date range is invalid: `to` must be after `from`")
  })

  it("refuses to edit a cancelled post (invalid_state)", async () => {
    const created = await send("en", "POST", "/v1/posts", aPost(server, [image]))
    expect((await send("en", "POST", `/v1/posts/${created.body.id}/cancel`)).status).toBe(200)
    const { status, id, en } = await refusedInBoth("PATCH", `/v1/posts/${created.body.id}`, { caption: "too late" })
    expect(status).toBe(409)
    expect(id.message_id).toBe("Tidak dapat mengubah unggahan dalam status saat ini: unggahan ini berstatus cancelled")
    expect(en.message).toBe("The post cannot be changed in its current state: the post is cancelled")
  })

  it("names the resource that was not found", async () => {
    const { id, en } = await refusedInBoth("GET", "/v1/posts/post_00000000000000000000000000")
    expect(id.message_id).toBe("Tidak ada unggahan dengan id tersebut di workspace ini.")
    expect(en.message).toBe("No post with that id exists in this workspace.")
  })

  it("says why a webhook url is refused (invalid_url)", async () => {
    const plain = await refusedInBoth("POST", "/v1/webhooks", { url: "http://93.184.216.34/postwire", events: ["post.failed"] })
    expect(plain.id.message_id).toBe("url harus berupa alamat https publik: alamat harus menggunakan https")
    expect(plain.en.message).toBe("The url must be a public https address: it must use https")
    const internal = await refusedInBoth("POST", "/v1/webhooks", { url: "https://10.0.0.1/hook", events: ["post.failed"] })
    expect(internal.id.message_id).toBe("url harus berupa alamat https publik: alamat privat")
  })

  it("says which media a platform cannot take (media_invalid)", async () => {
    const { status, id, en } = await refusedInBoth(
      "POST",
      "/v1/posts",
      aPost(server, [image], { targets: [{ account_id: accountOf(server, "shortvideo") }] })
    )
    expect(status).toBe(422)
    // A PNG image to TikTok: its photo posts take JPEG or WebP only.
    expect(id.message_id).toBe("Media tidak sesuai untuk shortvideo: unggahan foto TikTok hanya menerima gambar JPEG atau WebP; gambar ini image/png")
    expect(en.message).toBe("The media does not fit shortvideo: TikTok photo posts take JPEG or WebP images only; this one is image/png")
  })

  it("says an account is listed twice in targets", async () => {
    const photo = accountOf(server, "photo")
    const { id } = await refusedInBoth(
      "POST",
      "/v1/posts",
      aPost(server, [image], { targets: [{ account_id: photo }, { account_id: photo }] })
    )
    expect(id.field).toBe("targets[1].account_id")
    expect(id.message_id).toBe("Permintaan tidak valid pada targets[1].account_id: akun yang sama tercantum dua kali")
  })

  it("reports a webhook endpoint that fails its test delivery", async () => {
    const endpoint = await send("en", "POST", "/v1/webhooks", { url: receiver.url, events: ["post.failed"] })
    receiver.secret = endpoint.body.secret
    receiver.mode = 503
    const indonesian = await send("id", "POST", `/v1/webhooks/${endpoint.body.id}/test`)
    const english = await send("en", "POST", `/v1/webhooks/${endpoint.body.id}/test`)
    receiver.mode = 204
    expectBilingual(indonesian.body.error, english.body.error)
    expect(indonesian.body.error.message_id).toBe("Endpoint webhook tidak menerima pengiriman: endpoint membalas dengan HTTP 503")
    await send("en", "DELETE", `/v1/webhooks/${endpoint.body.id}`)
  })

  it("stores a failed target's error, and sends it in post.failed, in both languages", async () => {
    const sink = await aReceiver()
    try {
      const endpoint = await send("en", "POST", "/v1/webhooks", { url: sink.url, events: ["post.failed"] })
      sink.secret = endpoint.body.secret
      const failing = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
        profile_id: server.profileId,
        platform: "photo",
        sandbox: true,
        simulate: { error: "media_invalid" }
      })
      const body = aPost(server, [image], { approval: { mode: "none" }, targets: [{ account_id: failing.id }] })
      const created = await send("en", "POST", "/v1/posts", body)
      expect(created.status).toBe(201)
      await sink.waitUntil(() => sink.events.some((e) => e.type === "post.failed"), "post.failed")

      const event = sink.events.find((e) => e.type === "post.failed")!
      const sent = (event.data as { error: Texts }).error
      expect(sent.message).toBe("The media does not fit photo: simulated failure")
      expect(sent.message_id).toBe("Media tidak sesuai untuk photo: kegagalan simulasi")

      const inIndonesian = await send("id", "GET", `/v1/posts/${created.body.id}`)
      const inEnglish = await send("en", "GET", `/v1/posts/${created.body.id}`)
      expect(inEnglish.body.targets[0].error).toMatchObject(sent)
      expectBilingual(inIndonesian.body.targets[0].error, inEnglish.body.targets[0].error)
      await send("en", "DELETE", `/v1/webhooks/${endpoint.body.id}`)
    } finally {
      await sink.close()
    }
  })
})
