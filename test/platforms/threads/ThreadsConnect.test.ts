import { assert, describe, it } from "@effect/vitest"
import { Credentials, threads } from "@postwire/platforms"
import { Effect } from "effect"
import * as ThreadsOAuthFake from "./ThreadsOAuthFake.ts"
import { aConnector, callbackOf, connect, consent, failureOf, state, verifier } from "../connect/connectHarness.ts"

type Fake = ThreadsOAuthFake.ThreadsOAuthFake

const options = (fake: Fake) => ({
  textpost: {
    appId: fake.appId,
    appSecret: fake.appSecret,
    authorizeUrl: `${fake.url}/oauth/authorize`,
    tokenUrl: `${fake.url}/oauth/access_token`,
    exchangeUrl: `${fake.url}/access_token`,
    refreshUrl: `${fake.url}/refresh_access_token`,
    graphUrl: `${fake.url}/v1.0`
  }
})

const withFake = <A, E>(body: (fake: Fake, connector: Effect.Success<ReturnType<typeof aConnector>>) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* ThreadsOAuthFake.scoped()
      const connector = yield* aConnector(options(fake))
      return yield* body(fake, connector)
    })
  )

const dayMs = 24 * 60 * 60 * 1000

describe("Threads connect", () => {
  it.live("sends the person to Threads' authorization page with the app id, scopes and state", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const url = new URL(
          yield* connector.authorizationUrl({ platform: "textpost", sandbox: false, state, redirectUri: callbackOf("textpost"), codeVerifier: verifier })
        )
        assert.strictEqual(`${url.origin}${url.pathname}`, `${fake.url}/oauth/authorize`)
        assert.strictEqual(url.searchParams.get("client_id"), fake.appId)
        assert.strictEqual(url.searchParams.get("scope"), "threads_basic,threads_content_publish,threads_read_replies,threads_manage_replies,threads_delete")
        assert.strictEqual(url.searchParams.get("state"), state)
        const cancelled = yield* consent(connector, fake, "textpost", { decision: "cancel" })
        assert.strictEqual(cancelled.get("error_reason"), "user_denied")
      })
    )
  )

  it.live("connects: code, long-lived token with its lifetime, the user id digit for digit, identity", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.longLifetimeSec = 7_776_000
        const before = Date.now()
        const [identity] = yield* connect(connector, fake, "textpost")
        assert.strictEqual(identity!.platformAccountId, "25012345678901234")
        assert.strictEqual(identity!.grantId, "25012345678901234")
        assert.strictEqual(identity!.handle, "sari.writes")
        assert.strictEqual(identity!.displayName, "Sari Writes")
        assert.strictEqual(identity!.avatarUrl, fake.person.threads_profile_picture_url)
        assert.isAtLeast(identity!.accessTokenExpiresAt!, before + 7_776_000_000)
        const credentials = yield* Credentials.decode(threads, identity!.credentials)
        assert.strictEqual(fake.validToken(credentials.access_token)?.kind, "long")
        assert.strictEqual(fake.requests.find((r) => r.route === "exchange")!.params.grant_type, "th_exchange_token")
        assert.strictEqual(fake.requests.find((r) => r.route === "token")!.method, "POST")
      })
    )
  )

  it.live("refreshes with th_refresh_token a day on; refused refreshes ask for a reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "textpost")
        const credentials = yield* Credentials.decode(threads, identity!.credentials)
        const dayOld = Credentials.encode(threads, { ...credentials, issued_at: credentials.issued_at! - dayMs })
        fake.advance(dayMs)
        const refreshed = yield* connector.refresh({ platform: "textpost", sandbox: false, credentials: dayOld })
        assert.strictEqual(refreshed._tag, "Refreshed")
        assert.strictEqual(fake.requests.find((r) => r.route === "refresh")!.params.grant_type, "th_refresh_token")
        fake.advance(61 * dayMs)
        const lapsedAtMeta = yield* failureOf(connector.refresh({ platform: "textpost", sandbox: false, credentials: dayOld }))
        assert.strictEqual(lapsedAtMeta.code, "token_expired")
        assert.isTrue(lapsedAtMeta.needsReconnect)
      })
    )
  )

  it.live("Meta's rate limits are transient, its refusals are not, whatever the error's type", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const limit = { error: { message: "(#4) Application request limit reached", type: "OAuthException", code: 4, fbtrace_id: "A1" } }
        fake.faults.inject("me", { status: 400, json: limit })
        const throttled = yield* failureOf(connect(connector, fake, "textpost"))
        assert.strictEqual(throttled.code, "platform_unavailable")
        assert.strictEqual(throttled.platformCode, "4")
        assert.isTrue(throttled.retryable)
        fake.faults.inject("exchange", { status: 400, json: { error: { message: "Error validating client secret.", type: "OAuthException", code: 1 } } })
        const refused = yield* failureOf(connect(connector, fake, "textpost"))
        assert.strictEqual(refused.code, "connect_failed")
        assert.strictEqual(refused.platformCode, "1")
        assert.isFalse(refused.retryable)
        fake.faults.inject("token", { status: 502, json: {} }, 2)
        const down = yield* failureOf(connect(connector, fake, "textpost"))
        assert.strictEqual(down.code, "platform_unavailable")
        assert.strictEqual(fake.count("token"), 4)
      })
    )
  )

  it.live("has no revoke API", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "textpost")
        assert.deepStrictEqual(yield* connector.revoke({ platform: "textpost", sandbox: false, credentials: identity!.credentials }), {
          _tag: "Unsupported"
        })
      })
    )
  )
})
