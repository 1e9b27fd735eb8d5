import { assert, describe, it } from "@effect/vitest"
import { Credentials } from "@postwire/platforms"
import { Effect } from "effect"

describe("Credentials", () => {
  it.effect("reads back what it wrote, per platform", () =>
    Effect.gen(function* () {
      const tiktok = { access_token: "act.1", refresh_token: "rft.1", expires_at: 1_795_000_000_000, open_id: "o1" }
      assert.deepStrictEqual(yield* Credentials.decode("shortvideo", Credentials.encode("shortvideo", tiktok)), tiktok)
      const page = { page_access_token: "EAAP.1", user_access_token: "EAAU.1" }
      assert.deepStrictEqual(yield* Credentials.decode("pages", Credentials.encode("pages", page)), page)
    })
  )

  it.effect("asks for a reconnect when credentials are missing, malformed or of another platform", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(Credentials.decode("photo", null))
      assert.strictEqual(missing.code, "token_expired")
      assert.strictEqual(missing.platformCode, "credentials_missing")
      assert.isTrue(missing.needsReconnect)
      const malformed = yield* Effect.flip(Credentials.decode("photo", "{oops"))
      assert.strictEqual(malformed.platformCode, "credentials_invalid")
      const wrongShape = yield* Effect.flip(Credentials.decode("shortvideo", JSON.stringify({ access_token: "x" })))
      assert.strictEqual(wrongShape.platformCode, "credentials_invalid")
      assert.isTrue(wrongShape.needsReconnect)
    })
  )
})
