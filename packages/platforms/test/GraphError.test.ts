import { assert, describe, it } from "@effect/vitest"
import { GraphError } from "@postwire/platforms"

const envelope = (code: number, subcode?: number, extra: Record<string, unknown> = {}) => ({
  error: {
    message: "x",
    type: "OAuthException",
    code,
    ...(subcode === undefined ? {} : { error_subcode: subcode }),
    fbtrace_id: "A1",
    ...extra
  }
})

describe("GraphError", () => {
  const table: ReadonlyArray<readonly [string, number, number | undefined, string, boolean]> = [
    ["expired token", 190, 463, "token_expired", false],
    ["password changed", 190, 460, "token_expired", false],
    ["no role on the Page", 190, 492, "permission_missing", false],
    ["permission", 10, undefined, "permission_missing", false],
    ["pages_manage_posts missing", 200, undefined, "permission_missing", false],
    ["permission range", 299, undefined, "permission_missing", false],
    ["task revoked", 283, undefined, "permission_missing", false],
    ["daily limit", 9, 2207042, "quota_exceeded", true],
    ["spam restriction", 4, 2207051, "account_restricted", false],
    ["restricted account", 25, 2207050, "account_restricted", false],
    ["temporarily blocked", 368, undefined, "account_restricted", false],
    ["unsupported video", 352, 2207026, "media_invalid", false],
    ["media not fetchable", 9004, 2207052, "media_invalid", false],
    ["image aspect ratio", 36003, undefined, "media_invalid", false],
    ["duplicate post", 506, undefined, "media_invalid", false],
    ["download timeout", -2, 2207003, "platform_unavailable", true],
    ["media server error", -1, 2207001, "platform_unavailable", true],
    ["unknown error", 1, undefined, "platform_unavailable", true],
    ["service unavailable", 2, undefined, "platform_unavailable", true],
    ["app throttling", 4, undefined, "platform_unavailable", true],
    ["user throttling", 17, undefined, "platform_unavailable", true],
    ["page throttling", 32, undefined, "platform_unavailable", true],
    ["account throttling", 341, undefined, "platform_unavailable", true],
    ["rate limit", 613, undefined, "platform_unavailable", true]
  ]
  for (const [name, code, subcode, expected, retryable] of table) {
    it(`maps ${name} (${code}${subcode === undefined ? "" : `/${subcode}`}) to ${expected}`, () => {
      const failure = GraphError.toFailure("photo", 400, envelope(code, subcode))
      assert.strictEqual(failure.code, expected)
      assert.strictEqual(failure.retryable, retryable)
      assert.strictEqual(failure.platformCode, subcode === undefined ? String(code) : `${code}/${subcode}`)
    })
  }

  it("trusts is_transient over an unknown code", () => {
    assert.strictEqual(GraphError.toFailure("pages", 400, envelope(4242, undefined, { is_transient: true })).code, "platform_unavailable")
    assert.strictEqual(GraphError.toFailure("pages", 400, envelope(4242)).code, "media_invalid")
  })

  // https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits
  it("takes every Business Use Case throttle (80000-80014) for a retryable wait until the header's time", () => {
    const now = Date.UTC(2026, 11, 5, 8, 0, 0)
    for (let code = 80000; code <= 80014; code++) {
      const failure = GraphError.toFailure("photo", 400, envelope(code, code === 80000 ? 2446079 : undefined), { now })
      assert.strictEqual(failure.code, "platform_unavailable", String(code))
      assert.isTrue(failure.retryable, String(code))
      assert.strictEqual(failure.retryAt, now + GraphError.defaultRegainAccessMs, String(code))
    }
    const header = {
      "x-business-use-case-usage": JSON.stringify({
        "17841400123456789": [{ type: "instagram", call_count: 100, total_cputime: 25, total_time: 25, estimated_time_to_regain_access: 19 }],
        "104000000000001": [{ type: "pages", call_count: 97, total_cputime: 23, total_time: 23, estimated_time_to_regain_access: 0 }]
      })
    }
    assert.strictEqual(GraphError.toFailure("photo", 400, envelope(80002), { headers: header, now }).retryAt, now + 19 * 60_000)
    // Throttled with a header saying 0 minutes: a minute at least, not a burst of calls that each count.
    const zero = { "x-business-use-case-usage": JSON.stringify({ "1": [{ type: "pages", call_count: 100, estimated_time_to_regain_access: 0 }] }) }
    assert.strictEqual(GraphError.toFailure("pages", 400, envelope(80001), { headers: zero, now }).retryAt, now + 60_000)
    assert.strictEqual(GraphError.toFailure("pages", 400, envelope(80001), { headers: { "x-business-use-case-usage": "{" }, now }).retryAt, now + GraphError.defaultRegainAccessMs)
    // A refusal of the request: nothing was carried out.
    assert.isTrue(GraphError.isRefusal(GraphError.toFailure("photo", 400, envelope(80002), { now })))
    // Other throttles keep their in-step retries (no time is given for them).
    assert.isUndefined(GraphError.toFailure("pages", 400, envelope(32), { headers: header, now }).retryAt)
  })

  it("classifies an answer without an envelope by its HTTP status", () => {
    assert.strictEqual(GraphError.toFailure("pages", 502, undefined).platformCode, "http_502")
    assert.strictEqual(GraphError.toFailure("pages", 502, undefined).code, "platform_unavailable")
    assert.strictEqual(GraphError.toFailure("pages", 429, "busy").code, "platform_unavailable")
    assert.strictEqual(GraphError.toFailure("pages", 400, "nope").code, "media_invalid")
  })

  it("fills the message details of a media failure", () => {
    const failure = GraphError.toFailure("photo", 400, envelope(9004, 2207052))
    assert.deepStrictEqual(failure.details, {
      platform: "photo",
      detail: { en: "the platform could not fetch the media", id: "platform tidak dapat mengambil media ini" }
    })
  })

  it("recognizes Meta's not-ready answer to a publish", () => {
    assert.isTrue(GraphError.isNotReady(GraphError.toFailure("photo", 400, envelope(9007, 2207027))))
    assert.isFalse(GraphError.isNotReady(GraphError.toFailure("photo", 400, envelope(9, 2207042))))
  })

  it("reads nothing from a body that is not an envelope", () => {
    assert.isUndefined(GraphError.parse({ id: "1" }))
    assert.isUndefined(GraphError.parse({ error: { message: "no code" } }))
    assert.deepInclude(GraphError.parse(envelope(190, 463)), { code: 190, error_subcode: 463, type: "OAuthException" })
  })

  it("tells Meta's refusals, which carried nothing out, from answers that leave it open", () => {
    const of = (status: number, body: unknown) => GraphError.toFailure("photo", status, body)
    assert.isTrue(GraphError.isRefusal(of(400, envelope(4))), "a throttle")
    assert.isTrue(GraphError.isRefusal(of(400, envelope(9, 2207042))), "the daily limit")
    assert.isTrue(GraphError.isRefusal(of(400, envelope(352, 2207026))), "the media")
    assert.isFalse(GraphError.isRefusal(of(500, envelope(2, undefined, { is_transient: true }))), "service unavailable")
    assert.isFalse(GraphError.isRefusal(of(500, envelope(-1, 2207001))), "a server error")
    assert.isFalse(GraphError.isRefusal(of(502, undefined)), "a bare 5xx")
  })
})
