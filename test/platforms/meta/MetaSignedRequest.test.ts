import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { MetaSignedRequest } from "@postwire/platforms"
import { Effect } from "effect"
import { aConnector, failureOf } from "../connect/connectHarness.ts"

const secret = "meta-app-secret"
const payload = { algorithm: "HMAC-SHA256", issued_at: 1_795_000_000, user_id: "10160123456789012" }

describe("Meta signed request", () => {
  it("reads the user id of a request signed with the app secret", () => {
    const verified = MetaSignedRequest.verify(MetaSignedRequest.sign(payload, secret), secret)
    assert.strictEqual(verified._tag, "Valid")
    if (verified._tag !== "Valid") return
    assert.strictEqual(verified.payload.userId, "10160123456789012")
    assert.strictEqual(verified.payload.issuedAt, 1_795_000_000_000)
  })

  it("reads a numeric user id digit for digit", () => {
    const encoded = Buffer.from('{"algorithm":"HMAC-SHA256","issued_at":1795000000,"user_id":10160123456789012}').toString("base64url")
    const signature = createHmac("sha256", secret).update(encoded).digest("base64url")
    const verified = MetaSignedRequest.verify(`${signature}.${encoded}`, secret)
    assert.deepInclude(verified, { _tag: "Valid" })
    if (verified._tag === "Valid") assert.strictEqual(verified.payload.userId, "10160123456789012")
  })

  it("refuses a request signed with another secret, or altered after signing", () => {
    assert.deepStrictEqual(MetaSignedRequest.verify(MetaSignedRequest.sign(payload, "another"), secret), {
      _tag: "Invalid",
      reason: "bad_signature"
    })
    const [signature] = MetaSignedRequest.sign(payload, secret).split(".")
    const altered = Buffer.from(JSON.stringify({ ...payload, user_id: "1" })).toString("base64url")
    assert.deepStrictEqual(MetaSignedRequest.verify(`${signature}.${altered}`, secret), { _tag: "Invalid", reason: "bad_signature" })
  })

  it("refuses another algorithm even when the signature matches", () => {
    assert.deepStrictEqual(MetaSignedRequest.verify(MetaSignedRequest.sign({ ...payload, algorithm: "HMAC-SHA1" }, secret), secret), {
      _tag: "Invalid",
      reason: "unsupported_algorithm"
    })
    assert.deepStrictEqual(MetaSignedRequest.verify(MetaSignedRequest.sign({ ...payload, algorithm: undefined }, secret), secret), {
      _tag: "Invalid",
      reason: "unsupported_algorithm"
    })
  })

  it("refuses malformed requests", () => {
    for (const bad of ["", "abc", "a.b.c", "!!.??", `${MetaSignedRequest.sign(payload, secret)}.x`]) {
      assert.deepStrictEqual(MetaSignedRequest.verify(bad, secret), { _tag: "Invalid", reason: "malformed" }, bad)
    }
    const noUser = MetaSignedRequest.sign({ algorithm: "HMAC-SHA256", issued_at: 1 }, secret)
    assert.deepStrictEqual(MetaSignedRequest.verify(noUser, secret), { _tag: "Invalid", reason: "malformed" })
  })

  it.effect("the connector verifies with each Meta product's own app secret, and names the field when refusing", () =>
    Effect.gen(function* () {
      const connector = yield* aConnector({
        pages: { appSecret: "meta-app-secret" },
        photo: { appSecret: "instagram-app-secret" },
        textpost: { appSecret: "threads-app-secret" }
      })
      const forPages = yield* connector.verifyDeauthorization("pages", MetaSignedRequest.sign(payload, "meta-app-secret"))
      assert.strictEqual(forPages.userId, payload.user_id)
      const forInstagram = yield* connector.verifyDeauthorization("photo", MetaSignedRequest.sign(payload, "instagram-app-secret"))
      assert.strictEqual(forInstagram.userId, payload.user_id)
      const crossed = yield* failureOf(connector.verifyDeauthorization("textpost", MetaSignedRequest.sign(payload, "meta-app-secret")))
      assert.strictEqual(crossed.code, "invalid_request")
      assert.strictEqual(crossed.platformCode, "bad_signature")
      assert.strictEqual(crossed.details?.field, "signed_request")
      assert.notInclude(JSON.stringify(crossed), "threads-app-secret")
      const unconfigured = yield* aConnector()
      const missing = yield* failureOf(unconfigured.verifyDeauthorization("pages", MetaSignedRequest.sign(payload, "x")))
      assert.strictEqual(missing.code, "platform_not_configured")
      assert.strictEqual(missing.details?.settings, "POSTWIRE_META_APP_SECRET")
    })
  )
})
