import { assert, describe, it } from "@effect/vitest"
import { Credentials, facebook, instagram, Registry, tiktok } from "@postwire/platforms"
import { Effect, Schema } from "effect"

describe("Credentials", () => {
  it.effect("reads back what it wrote, with each plugin's own schema", () =>
    Effect.gen(function* () {
      const token = { access_token: "act.1", refresh_token: "rft.1", expires_at: 1_795_000_000_000, open_id: "o1" }
      assert.deepStrictEqual(yield* Credentials.decode(tiktok, Credentials.encode(tiktok, token)), token)
      const page = { page_access_token: "EAAP.1", user_access_token: "EAAU.1" }
      assert.deepStrictEqual(yield* Credentials.decode(facebook, Credentials.encode(facebook, page)), page)
    })
  )

  it.effect("asks for a reconnect when credentials are missing, malformed or of another platform", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(Credentials.decode(instagram, null))
      assert.strictEqual(missing.code, "token_expired")
      assert.strictEqual(missing.platformCode, "credentials_missing")
      assert.isTrue(missing.needsReconnect)
      const malformed = yield* Effect.flip(Credentials.decode(instagram, "{oops"))
      assert.strictEqual(malformed.platformCode, "credentials_invalid")
      const wrongShape = yield* Effect.flip(Credentials.decode(tiktok, JSON.stringify({ access_token: "x" })))
      assert.strictEqual(wrongShape.platformCode, "credentials_invalid")
      assert.isTrue(wrongShape.needsReconnect)
    })
  )

  it("every built-in plugin declares the shape of its credentials", () => {
    for (const plugin of Registry.builtins) assert.isTrue(Schema.isSchema(plugin.credentials), plugin.name)
  })

  it.effect("a plugin of its own: its schema, or any JSON when it declares none", () =>
    Effect.gen(function* () {
      const BlogCredentials = Schema.Struct({ token: Schema.String })
      const blog = Registry.check({ ...aPlugin("blog"), credentials: BlogCredentials })
      assert.deepStrictEqual(yield* Credentials.decode(blog, '{"token":"t-1"}'), { token: "t-1" })
      const refused = yield* Effect.flip(Credentials.decode(blog, '{"key":"t-1"}'))
      assert.strictEqual(refused.platformCode, "credentials_invalid")
      const free = Registry.check(aPlugin("notes"))
      assert.deepStrictEqual(yield* Credentials.decode(free, '{"key":"t-1"}'), { key: "t-1" })
    })
  )

  it("refuses a plugin whose credentials are not a schema", () => {
    assert.throws(
      () => Registry.check({ ...aPlugin("blog"), credentials: { token: "string" } }),
      /`credentials` must be an Effect Schema/
    )
  })
})

const aPlugin = (name: string) => ({
  name,
  displayName: name,
  rules: {
    displayName: name,
    captionMax: 100,
    dailyQuota: 10,
    mediaMin: 0,
    mediaMax: 1,
    comments: { read: false, reply: false, hide: false, delete: false, push: false },
    checkMedia: () => undefined
  },
  publish: { defaults: {}, make: () => ({ publish: () => Effect.die("unused") }) }
})
