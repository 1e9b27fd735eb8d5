import { assert, describe, it } from "@effect/vitest"
import { Credentials, instagram } from "@postwire/platforms"
import { Effect } from "effect"
import { bucThrottle } from "../meta/GraphFake.ts"
import * as InstagramOAuthFake from "./InstagramOAuthFake.ts"
import { aConnector, callbackOf, connect, consent, failureOf, state, verifier } from "../connect/connectHarness.ts"

type Fake = InstagramOAuthFake.InstagramOAuthFake

const options = (fake: Fake) => ({
  photo: {
    appId: fake.appId,
    appSecret: fake.appSecret,
    authorizeUrl: `${fake.url}/oauth/authorize`,
    tokenUrl: `${fake.url}/oauth/access_token`,
    exchangeUrl: `${fake.url}/access_token`,
    refreshUrl: `${fake.url}/refresh_access_token`,
    graphUrl: `${fake.url}/v23.0`
  }
})

type Connector = Effect.Success<ReturnType<typeof aConnector>>

const withFake = <A, E>(body: (fake: Fake, connector: Connector) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* InstagramOAuthFake.scoped()
      const connector = yield* aConnector(options(fake))
      return yield* body(fake, connector)
    })
  )

const dayMs = 24 * 60 * 60 * 1000

describe("Instagram connect", () => {
  it.live("sends the person to Instagram Login with the app id, the business scopes and the state", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const url = new URL(
          yield* connector.authorizationUrl({ platform: "photo", sandbox: false, state, redirectUri: callbackOf("photo"), codeVerifier: verifier })
        )
        assert.strictEqual(`${url.origin}${url.pathname}`, `${fake.url}/oauth/authorize`)
        assert.strictEqual(url.searchParams.get("client_id"), fake.appId)
        assert.strictEqual(url.searchParams.get("scope"), "instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments")
        assert.strictEqual(url.searchParams.get("response_type"), "code")
        assert.strictEqual(url.searchParams.get("state"), state)
        assert.strictEqual(url.searchParams.get("redirect_uri"), callbackOf("photo"))
        // Instagram Login takes no PKCE.
        assert.isNull(url.searchParams.get("code_challenge"))
      })
    )
  )

  for (const form of ["wrapped", "unwrapped"] as const) {
    it.live(`connects from the ${form} token answer: long-lived token, the account id digit for digit, identity`, () =>
      withFake((fake, connector) =>
        Effect.gen(function* () {
          fake.answerForm = form
          fake.longLifetimeSec = 5_000_000
          const before = Date.now()
          const [identity, ...more] = yield* connect(connector, fake, "photo")
          assert.lengthOf(more, 0)
          assert.strictEqual(identity!.platformAccountId, "17841400123456789")
          assert.strictEqual(identity!.grantId, fake.person.id)
          assert.strictEqual(identity!.handle, "warung.sari")
          assert.strictEqual(identity!.displayName, "Warung Sari")
          assert.strictEqual(identity!.avatarUrl, fake.person.profile_picture_url)
          assert.deepStrictEqual(identity!.scopes, ["instagram_business_basic", "instagram_business_content_publish", "instagram_business_manage_comments"])
          assert.isAtLeast(identity!.accessTokenExpiresAt!, before + 5_000_000_000)
          assert.isAtMost(identity!.accessTokenExpiresAt!, Date.now() + 5_000_000_000)
          assert.isNull(identity!.refreshTokenExpiresAt)
          assert.isNull(identity!.creatorInfo)
          const credentials = yield* Credentials.decode(instagram, identity!.credentials)
          assert.strictEqual(fake.validToken(credentials.access_token)?.kind, "long")
          assert.strictEqual(credentials.user_id, "17841400123456789")
          assert.deepStrictEqual(
            ["token", "exchange", "me"].map((route) => fake.count(route)),
            [1, 1, 1]
          )
          // No appsecret_proof by default on Instagram Login's host (undocumented there).
          assert.isUndefined(fake.requests.find((r) => r.route === "me")!.params.appsecret_proof)
          const code = fake.requests.find((r) => r.route === "token")!.params.code!
          assert.notInclude(code, "#")
        })
      )
    )
  }

  it.live("signs /me with appsecret_proof when the proof is on, and the fake checks it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* InstagramOAuthFake.scoped()
        const connector = yield* aConnector({ photo: { ...options(fake).photo, appSecretProof: "on" } })
        const [identity] = yield* connect(connector, fake, "photo")
        assert.strictEqual(identity!.handle, "warung.sari")
        const { createHmac } = yield* Effect.promise(() => import("node:crypto"))
        const me = fake.requests.find((r) => r.route === "me")!
        assert.strictEqual(me.params.appsecret_proof, createHmac("sha256", fake.appSecret).update(me.params.access_token!).digest("hex"))
      })
    )
  )

  it.live("strips the #_ that Instagram appends to the code", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const query = yield* consent(connector, fake, "photo")
        const identities = yield* connector.exchange({
          platform: "photo",
          sandbox: false,
          code: `${query.get("code")}#_`,
          redirectUri: callbackOf("photo"),
          codeVerifier: verifier
        })
        assert.lengthOf(identities, 1)
      })
    )
  )

  it.live("accepts the professional account types in any letter case (Meta's docs write Business / Media_Creator)", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        for (const accountType of ["Business", "Media_Creator", "BUSINESS", "MEDIA_CREATOR"] as const) {
          fake.person.account_type = accountType
          const [identity] = yield* connect(connector, fake, "photo")
          assert.strictEqual(identity!.handle, "warung.sari", accountType)
        }
        fake.person.account_type = "Personal"
        const personal = yield* failureOf(connect(connector, fake, "photo"))
        assert.strictEqual(personal.code, "connect_failed")
        assert.strictEqual(personal.platformCode, "account_type:Personal")
      })
    )
  )

  it.live("refuses a personal account and a consent without content publishing", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.person.account_type = "PERSONAL"
        const personal = yield* failureOf(connect(connector, fake, "photo"))
        assert.strictEqual(personal.code, "connect_failed")
        assert.strictEqual(personal.platformCode, "account_type:PERSONAL")
        fake.person.account_type = "MEDIA_CREATOR"
        fake.declinedScopes.push("instagram_business_content_publish")
        const declined = yield* failureOf(connect(connector, fake, "photo"))
        assert.strictEqual(declined.code, "connect_refused")
        assert.strictEqual(declined.platformCode, "scope_declined:instagram_business_content_publish")
      })
    )
  )

  it.live("connects without the comment permission: publishing does not need it", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.declinedScopes.push("instagram_business_manage_comments")
        const [identity] = yield* connect(connector, fake, "photo")
        assert.deepStrictEqual(identity!.scopes, ["instagram_business_basic", "instagram_business_content_publish"])
      })
    )
  )

  it.live("a refused consent redirects with error=access_denied and error_reason=user_denied", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const query = yield* consent(connector, fake, "photo", { decision: "cancel" })
        assert.strictEqual(query.get("error"), "access_denied")
        assert.strictEqual(query.get("error_reason"), "user_denied")
        assert.strictEqual(query.get("state"), state)
      })
    )
  )

  it.live("a used code is Instagram's flat OAuthException, normalized to connect_failed", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const query = yield* consent(connector, fake, "photo")
        const request = { platform: "photo" as const, sandbox: false, code: query.get("code")!, redirectUri: callbackOf("photo"), codeVerifier: verifier }
        yield* connector.exchange(request)
        const failure = yield* failureOf(connector.exchange(request))
        assert.strictEqual(failure.code, "connect_failed")
        assert.strictEqual(failure.platformCode, "400")
        assert.isFalse(failure.retryable)
        const wrongCallback = yield* failureOf(connector.exchange({ ...request, redirectUri: `${callbackOf("photo")}/other` }))
        assert.strictEqual(wrongCallback.code, "connect_failed")
      })
    )
  )

  it.live("refreshes a long-lived token once it is a day old; an early refresh is retryable and not sent", () =>
    Effect.gen(function* () {
      const fake = yield* InstagramOAuthFake.scoped()
      const connector = yield* aConnector(options(fake))
      const [identity] = yield* connect(connector, fake, "photo")
      const early = yield* failureOf(connector.refresh({ platform: "photo", sandbox: false, credentials: identity!.credentials }))
      assert.strictEqual(early.platformCode, "token_too_young")
      assert.isTrue(early.retryable)
      assert.isFalse(early.needsReconnect)
      assert.strictEqual(fake.count("refresh"), 0)
      // A day later on both clocks: the stored issue time says so, and the fake agrees.
      const credentials = yield* Credentials.decode(instagram, identity!.credentials)
      const dayOld = Credentials.encode(instagram, { ...credentials, issued_at: credentials.issued_at! - dayMs })
      fake.advance(dayMs)
      const refreshed = yield* connector.refresh({ platform: "photo", sandbox: false, credentials: dayOld })
      assert.strictEqual(refreshed._tag, "Refreshed")
      if (refreshed._tag !== "Refreshed") return
      const fresh = yield* Credentials.decode(instagram, refreshed.credentials)
      assert.notStrictEqual(fresh.access_token, credentials.access_token)
      assert.strictEqual(fresh.user_id, credentials.user_id)
      assert.deepStrictEqual(fresh.scopes, credentials.scopes)
      assert.isAbove(refreshed.accessTokenExpiresAt!, Date.now() + 59 * dayMs)
      assert.strictEqual(fake.requests.find((r) => r.route === "refresh")!.params.grant_type, "ig_refresh_token")
    }).pipe(Effect.scoped)
  )

  it.live("a token Meta no longer accepts cannot be refreshed: reconnect; a 5xx is transient", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "photo")
        const credentials = yield* Credentials.decode(instagram, identity!.credentials)
        const dayOld = Credentials.encode(instagram, { ...credentials, issued_at: credentials.issued_at! - dayMs })
        fake.faults.inject("refresh", { status: 500, json: { error: { message: "An unexpected error has occurred.", type: "OAuthException", code: 2, is_transient: true } } }, 2)
        const transient = yield* failureOf(connector.refresh({ platform: "photo", sandbox: false, credentials: dayOld }))
        assert.strictEqual(transient.code, "platform_unavailable")
        assert.isTrue(transient.retryable)
        assert.isFalse(transient.needsReconnect)
        fake.tokens.get(credentials.access_token)!.revoked = true
        fake.advance(dayMs)
        const refused = yield* failureOf(connector.refresh({ platform: "photo", sandbox: false, credentials: dayOld }))
        assert.strictEqual(refused.code, "token_expired")
        assert.strictEqual(refused.platformCode, "190/463")
        assert.isTrue(refused.needsReconnect)
        const lapsed = Credentials.encode(instagram, { ...credentials, expires_at: Date.now() - 1 })
        const expired = yield* failureOf(connector.refresh({ platform: "photo", sandbox: false, credentials: lapsed }))
        assert.strictEqual(expired.platformCode, "token_expired_before_refresh")
        assert.isTrue(expired.needsReconnect)
      })
    )
  )

  it.live("a Business Use Case throttle (80002) on refresh is retried at the header's time, never a reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "photo")
        const credentials = yield* Credentials.decode(instagram, identity!.credentials)
        const dayOld = Credentials.encode(instagram, { ...credentials, issued_at: credentials.issued_at! - dayMs })
        fake.advance(dayMs)
        fake.faults.inject("refresh", bucThrottle(80002, { minutes: 7 }))
        const before = Date.now()
        const throttled = yield* failureOf(connector.refresh({ platform: "photo", sandbox: false, credentials: dayOld }))
        assert.strictEqual(throttled.code, "platform_unavailable")
        assert.strictEqual(throttled.platformCode, "80002")
        assert.isTrue(throttled.retryable)
        assert.isFalse(throttled.needsReconnect)
        assert.isAtLeast(throttled.retryAt!, before + 7 * 60_000)
        assert.isAtMost(throttled.retryAt!, Date.now() + 7 * 60_000)
        // Asked once: a throttled call is not repeated within the refresh.
        assert.strictEqual(fake.count("refresh"), 1)
      })
    )
  )

  it.live("has no revoke API: says so without calling anything", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "photo")
        const before = fake.requests.length
        const revoked = yield* connector.revoke({ platform: "photo", sandbox: false, credentials: identity!.credentials })
        assert.deepStrictEqual(revoked, { _tag: "Unsupported" })
        assert.strictEqual(fake.requests.length, before)
      })
    )
  )
})
