import { describe, expect, it } from "vitest"
import { PostwireApiError, PostwireConnectionError } from "@postwire/client"
import { errorAnswer } from "./fixtures/FakePostwire.ts"
import { aCreatedPost, aPost } from "./fixtures/builders.ts"
import { aCreatePostBody, clientFor, useFakePostwire } from "./fixtures/client.ts"

const fake = useFakePostwire()

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const internalError = errorAnswer(500, { code: "internal_error", retryable: true })
const rateLimited = (retryAfter: string) =>
  errorAnswer(429, { code: "rate_limited", retryable: true }, { "retry-after": retryAfter })

describe("Idempotency-Key", () => {
  it("is added to every POST that lacks one, a new key per call", async () => {
    const post = aPost({ status: "failed" })
    fake.current.posts = [post]
    const postwire = clientFor(fake.current)

    await postwire.posts.create(aCreatePostBody())
    await postwire.posts.create(aCreatePostBody())
    await postwire.posts.validate(aCreatePostBody())
    await postwire.posts.cancel(post.id)
    await postwire.posts.retry(post.id)
    await postwire.media.upload({ data: "iVBORw0KGgo=" })

    const keys = fake.current.requests.map((request) => request.headers["idempotency-key"])
    expect(keys).toHaveLength(6)
    for (const key of keys) expect(key).toMatch(uuid)
    expect(new Set(keys).size).toBe(6)
  })

  it("is not added to GET or PATCH", async () => {
    const post = aPost()
    fake.current.posts = [post]
    const postwire = clientFor(fake.current)

    await postwire.posts.get(post.id)
    await postwire.posts.update(post.id, { caption: "Baru" })

    expect(fake.current.requests.map((request) => request.headers["idempotency-key"])).toEqual([undefined, undefined])
  })

  it("is the caller's own when one is given", async () => {
    const postwire = clientFor(fake.current)

    await postwire.posts.create(aCreatePostBody(), { idempotencyKey: "campaign-42-post-1" })
    await postwire.media.upload({ data: "iVBORw0KGgo=" }, { idempotencyKey: "upload-7" })

    expect(fake.current.requests.map((request) => request.headers["idempotency-key"])).toEqual([
      "campaign-42-post-1",
      "upload-7"
    ])
  })

  it("is the same on every retry of one call", async () => {
    fake.current.answerNext("POST", "/v1/posts", internalError, { drop: true })

    const created = await clientFor(fake.current).posts.create(aCreatePostBody())

    const keys = fake.current.requestsTo("POST", "/v1/posts").map((request) => request.headers["idempotency-key"])
    expect(keys).toHaveLength(3)
    expect(keys[0]).toMatch(uuid)
    expect(new Set(keys)).toEqual(new Set([keys[0]]))
    expect(created.caption).toBe(aCreatePostBody().caption)
  })

  it("given by the caller is kept on every retry", async () => {
    fake.current.answerNext("POST", "/v1/posts", internalError)

    await clientFor(fake.current).posts.create(aCreatePostBody(), { idempotencyKey: "job-9" })

    expect(fake.current.requests.map((request) => request.headers["idempotency-key"])).toEqual(["job-9", "job-9"])
  })
})

describe("retries", () => {
  it("send a 429 again after its Retry-After, as many times as maxRetries allows", async () => {
    fake.current.answerNext("GET", "/v1/profiles", rateLimited("0"), rateLimited("1"))

    const profiles = await clientFor(fake.current).profiles.list()

    expect(fake.current.requests).toHaveLength(3)
    expect(profiles.data).toHaveLength(1)
  })

  it("send a rate-limited PATCH again: a 429 means the server did nothing", async () => {
    const post = aPost()
    fake.current.posts = [post]
    fake.current.answerNext("PATCH", `/v1/posts/${post.id}`, rateLimited("0"))

    await clientFor(fake.current).posts.update(post.id, { caption: "Baru" })

    expect(fake.current.requests).toHaveLength(2)
  })

  it("do not wait for a Retry-After over 60 seconds: the 429 is returned with retryAfter", async () => {
    fake.current.answerNext("GET", "/v1/profiles", rateLimited("3600"))

    const error = await clientFor(fake.current)
      .profiles.list()
      .catch((e: unknown) => e)

    expect(fake.current.requests).toHaveLength(1)
    expect(error).toBeInstanceOf(PostwireApiError)
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 3600, retryable: true })
  })

  it("send a GET again after a 500 and after a dropped connection", async () => {
    fake.current.answerNext("GET", "/v1/accounts", internalError, { drop: true })

    const accounts = await clientFor(fake.current).accounts.list()

    expect(fake.current.requests).toHaveLength(3)
    expect(accounts.data).toEqual(fake.current.accounts)
  })

  it("send a POST carrying an Idempotency-Key again after a 503", async () => {
    fake.current.answerNext(
      "POST",
      "/v1/posts",
      errorAnswer(503, { code: "platform_unavailable", retryable: true }),
      { status: 201, body: aCreatedPost() }
    )

    await clientFor(fake.current).posts.create(aCreatePostBody(), { idempotencyKey: "job-10" })

    expect(fake.current.requests).toHaveLength(2)
  })

  it("do not send a 400 again", async () => {
    fake.current.answerNext("GET", "/v1/posts", errorAnswer(400, { code: "invalid_cursor" }))

    await expect(clientFor(fake.current).posts.list({ cursor: "tampered" })).rejects.toMatchObject({
      status: 400,
      code: "invalid_cursor"
    })
    expect(fake.current.requests).toHaveLength(1)
  })

  it("do not send a PATCH again after a 500: it may have been applied", async () => {
    const post = aPost()
    fake.current.posts = [post]
    fake.current.answerNext("PATCH", `/v1/posts/${post.id}`, internalError)

    await expect(clientFor(fake.current).posts.update(post.id, { caption: "Baru" })).rejects.toMatchObject({
      status: 500
    })
    expect(fake.current.requests).toHaveLength(1)
  })

  it("stop after maxRetries and reject with the last answer's error", async () => {
    fake.current.answerNext("GET", "/v1/profiles", internalError, internalError, internalError)

    await expect(clientFor(fake.current, { maxRetries: 1 }).profiles.list()).rejects.toMatchObject({
      status: 500,
      code: "internal_error",
      retryable: true
    })
    expect(fake.current.requests).toHaveLength(2)
  })

  it("are off with maxRetries: 0", async () => {
    fake.current.answerNext("GET", "/v1/profiles", { drop: true })

    const error = await clientFor(fake.current, { maxRetries: 0 })
      .profiles.list()
      .catch((e: unknown) => e)

    expect(error).toBeInstanceOf(PostwireConnectionError)
    expect(error).toMatchObject({ kind: "network", retryable: true, method: "GET" })
    expect(fake.current.requests).toHaveLength(1)
  })
})
