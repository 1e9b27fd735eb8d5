import { describe, expect, it } from "vitest"
import type { ErrorObject } from "@postwire/domain"
import { Postwire, PostwireApiError, PostwireConnectionError } from "@postwire/client"
import { errorAnswer, FakePostwire, FIXTURE_API_KEY } from "./fixtures/FakePostwire.ts"
import { anError } from "./fixtures/builders.ts"
import { clientFor, useFakePostwire } from "./fixtures/client.ts"

const fake = useFakePostwire()

const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.unreachable("the call should have been rejected"),
    (error: unknown) => error
  )

// One error of each status the contract declares, with every optional field the status can carry.
const errorsByStatus: ReadonlyArray<readonly [number, Partial<ErrorObject> & Pick<ErrorObject, "code">]> = [
  [400, { code: "invalid_cursor", field: "cursor" }],
  [401, { code: "unauthorized" }],
  [403, { code: "account_forbidden", field: "targets[1].account_id" }],
  [404, { code: "not_found" }],
  [409, { code: "idempotency_conflict" }],
  [410, { code: "approval_expired" }],
  [
    422,
    {
      code: "consent_required",
      field: "targets[0].shortvideo.consent",
      target_id: "tgt_01JD0000000000000000000001",
      issues: [
        anError({ code: "consent_required", field: "targets[0].shortvideo.consent" }),
        anError({ code: "media_too_long", field: "media[0]", platform_code: "duration_exceeded" })
      ]
    }
  ],
  [429, { code: "rate_limited", retryable: true }],
  [500, { code: "internal_error", retryable: true }],
  [503, { code: "platform_unavailable", retryable: true, platform_code: "upstream_timeout" }]
]

describe("PostwireApiError", () => {
  it.each(errorsByStatus)("carries every field of a %i answer", async (status, fields) => {
    const answer = errorAnswer(status, fields, { "retry-after": "7" })
    const body = (answer as { body: { error: ErrorObject } }).body
    fake.current.answerNext("GET", "/v1/posts", answer)

    const error = await rejectionOf(clientFor(fake.current, { maxRetries: 0 }).posts.list())

    expect(error).toBeInstanceOf(PostwireApiError)
    expect({ ...(error as PostwireApiError), message: (error as PostwireApiError).message }).toEqual({
      _tag: "PostwireApiError",
      status,
      code: body.error.code,
      message: body.error.message,
      messageId: body.error.message_id,
      field: body.error.field,
      targetId: body.error.target_id,
      platformCode: body.error.platform_code,
      retryable: body.error.retryable,
      docs: body.error.docs,
      issues: body.error.issues,
      requestId: "req_fixture",
      retryAfter: 7,
      error: body.error
    })
  })

  it("passes an Indonesian message through unchanged", async () => {
    const message = "Kunci API tidak memiliki cakupan posts:write yang dibutuhkan endpoint ini — coba kunci lain 🔑"
    fake.current.answerNext(
      "GET",
      "/v1/posts",
      errorAnswer(403, { code: "insufficient_scope", message, message_id: message })
    )

    const error = await rejectionOf(clientFor(fake.current, { locale: "id" }).posts.list())

    expect(fake.current.requests[0]?.headers["accept-language"]).toBe("id")
    expect(error).toMatchObject({ message, messageId: message })
  })

  it("is an Error that try/catch, instanceof and logs understand", async () => {
    const error = await rejectionOf(clientFor(fake.current).posts.get("post_01JD0000000000000000009999"))

    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(PostwireApiError)
    expect(error).not.toBeInstanceOf(PostwireConnectionError)
    expect((error as Error).name).toBe("PostwireApiError")
    expect((error as Error).message).toBe("No post with that id exists in this workspace.")
    expect(String(error)).toContain("No post with that id exists")
  })

  it("stands for an error status whose body is not the API's shape, as unexpected_response", async () => {
    fake.current.answerNext("GET", "/v1/profiles", { status: 502, body: "<html>Bad Gateway</html>" })

    const error = await rejectionOf(clientFor(fake.current, { maxRetries: 0 }).profiles.list())

    expect(error).toBeInstanceOf(PostwireApiError)
    expect(error).toMatchObject({ status: 502, code: "unexpected_response", retryable: true })
  })

  it("keeps the body of an undeclared error status when it has the API's shape", async () => {
    fake.current.answerNext("GET", "/v1/profiles", errorAnswer(504, { code: "platform_unavailable", retryable: true }))

    const error = await rejectionOf(clientFor(fake.current, { maxRetries: 0 }).profiles.list())

    expect(error).toMatchObject({ status: 504, code: "platform_unavailable", requestId: "req_fixture" })
  })
})

describe("PostwireConnectionError", () => {
  it("stands for an answer that breaks the contract, as invalid_response", async () => {
    fake.current.answerNext("GET", "/v1/profiles", { status: 200, body: { profiles: [] } })

    const error = await rejectionOf(clientFor(fake.current).profiles.list())

    expect(error).toBeInstanceOf(PostwireConnectionError)
    expect(error).toMatchObject({
      kind: "invalid_response",
      retryable: false,
      method: "GET",
      url: `${fake.current.url}/v1/profiles`
    })
    expect(fake.current.requests).toHaveLength(1)
  })

  it("stands for a server that cannot be reached, as network", async () => {
    const stopped = await FakePostwire.start()
    const url = stopped.url
    await stopped.close()

    const error = await rejectionOf(
      new Postwire({ apiKey: FIXTURE_API_KEY, baseUrl: url, maxRetries: 0 }).profiles.list()
    )

    expect(error).toBeInstanceOf(PostwireConnectionError)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ kind: "network", retryable: true, url: `${url}/v1/profiles` })
  })
})
