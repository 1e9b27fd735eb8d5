import { assert, describe, it } from "@effect/vitest"
import { Credentials, tiktok } from "@postwire/platforms"
import { Effect } from "effect"
import * as TikTokOAuthFake from "./TikTokOAuthFake.ts"
import { aConnector, callbackOf, challenge, connect, consent, failureOf, state, verifier } from "../connect/connectHarness.ts"

const options = (fake: TikTokOAuthFake.TikTokOAuthFake) => ({
  shortvideo: {
    clientKey: fake.clientKey,
    clientSecret: fake.clientSecret,
    authorizeUrl: `${fake.url}/v2/auth/authorize/`,
    apiUrl: fake.url
  }
})

const withFake = <A, E>(
  body: (fake: TikTokOAuthFake.TikTokOAuthFake, connector: Effect.Success<ReturnType<typeof aConnector>>) => Effect.Effect<A, E>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* TikTokOAuthFake.scoped()
      const connector = yield* aConnector(options(fake))
      return yield* body(fake, connector)
    })
  )

const refreshOf = (connector: Effect.Success<ReturnType<typeof aConnector>>, credentials: string) =>
  connector.refresh({ platform: "shortvideo", sandbox: false, credentials })

describe("TikTok connect", () => {
  it.live("sends the person to Login Kit with the scopes, the state and a HEX S256 challenge", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const url = new URL(
          yield* connector.authorizationUrl({
            platform: "shortvideo",
            sandbox: false,
            state,
            redirectUri: callbackOf("shortvideo"),
            codeVerifier: verifier
          })
        )
        assert.strictEqual(`${url.origin}${url.pathname}`, `${fake.url}/v2/auth/authorize/`)
        assert.strictEqual(url.searchParams.get("client_key"), fake.clientKey)
        assert.strictEqual(url.searchParams.get("scope"), "user.info.basic,user.info.profile,video.publish,video.upload,video.list")
        assert.strictEqual(url.searchParams.get("response_type"), "code")
        assert.strictEqual(url.searchParams.get("redirect_uri"), callbackOf("shortvideo"))
        assert.strictEqual(url.searchParams.get("state"), state)
        assert.strictEqual(url.searchParams.get("code_challenge"), challenge)
        assert.match(challenge, /^[0-9a-f]{64}$/)
        assert.strictEqual(url.searchParams.get("code_challenge_method"), "S256")
        const query = yield* consent(connector, fake, "shortvideo")
        assert.strictEqual(query.get("state"), state)
        assert.strictEqual(query.get("scopes"), "user.info.basic,user.info.profile,video.publish,video.upload,video.list")
      })
    )
  )

  it.live("trades the code for tokens and reads the creator: id, handle, name, avatar, scopes, lifetimes, creator info", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.accessLifetimeSec = 86_400
        fake.refreshLifetimeSec = 31_536_000
        const before = Date.now()
        const identities = yield* connect(connector, fake, "shortvideo")
        const after = Date.now()
        assert.strictEqual(identities.length, 1)
        const identity = identities[0]!
        assert.strictEqual(identity.platformAccountId, fake.person.open_id)
        assert.strictEqual(identity.grantId, fake.person.open_id)
        assert.strictEqual(identity.handle, "dewi.creates")
        assert.strictEqual(identity.displayName, "Dewi Creator")
        assert.strictEqual(identity.avatarUrl, fake.person.avatar_url)
        assert.deepStrictEqual(identity.scopes, ["user.info.basic", "user.info.profile", "video.publish", "video.upload", "video.list"])
        assert.isAtLeast(identity.accessTokenExpiresAt!, before + 86_400_000)
        assert.isAtMost(identity.accessTokenExpiresAt!, after + 86_400_000)
        assert.isAtLeast(identity.refreshTokenExpiresAt!, before + 31_536_000_000)
        assert.isAtMost(identity.refreshTokenExpiresAt!, after + 31_536_000_000)
        assert.deepStrictEqual(identity.creatorInfo?.privacyLevelOptions, ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"])
        assert.strictEqual(identity.creatorInfo?.maxVideoPostDurationSec, 300)
        const credentials = yield* Credentials.decode(tiktok, identity.credentials)
        assert.isDefined(fake.validToken(credentials.access_token, ["access"]))
        assert.isDefined(fake.validToken(credentials.refresh_token, ["refresh"]))
        assert.strictEqual(credentials.open_id, fake.person.open_id)
        const exchange = fake.requests.find((r) => r.route === "token:authorization_code")!
        assert.strictEqual(exchange.headers["content-type"], "application/x-www-form-urlencoded")
        assert.strictEqual(exchange.params.code_verifier, verifier)
        assert.strictEqual(exchange.params.redirect_uri, callbackOf("shortvideo"))
      })
    )
  )

  it.live("without user.info.profile the handle comes from creator_info", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.declinedScopes.push("user.info.profile")
        const [identity] = yield* connect(connector, fake, "shortvideo")
        assert.strictEqual(identity!.handle, "dewi.creates")
        assert.isFalse(identity!.scopes.includes("user.info.profile"))
        const userInfo = fake.requests.find((r) => r.route === "user_info")!
        assert.notInclude(userInfo.params.fields ?? "", "username")
      })
    )
  )

  it.live("refuses a consent that left out video.publish", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.declinedScopes.push("video.publish")
        const failure = yield* failureOf(connect(connector, fake, "shortvideo"))
        assert.strictEqual(failure.code, "connect_refused")
        assert.strictEqual(failure.platformCode, "scope_declined:video.publish")
      })
    )
  )

  it.live("a refused consent comes back as access_denied with the state, and no code", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const query = yield* consent(connector, fake, "shortvideo", { decision: "cancel" })
        assert.strictEqual(query.get("error"), "access_denied")
        assert.strictEqual(query.get("state"), state)
        assert.isNull(query.get("code"))
      })
    )
  )

  it.live("a reused code, a wrong verifier and a wrong app secret end in connect_failed with TikTok's code", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const query = yield* consent(connector, fake, "shortvideo")
        const code = query.get("code")!
        const request = { platform: "shortvideo" as const, sandbox: false, code, redirectUri: callbackOf("shortvideo"), codeVerifier: "x".repeat(43) }
        const wrongVerifier = yield* failureOf(connector.exchange(request))
        assert.strictEqual(wrongVerifier.code, "connect_failed")
        assert.strictEqual(wrongVerifier.platformCode, "invalid_grant")
        yield* connector.exchange({ ...request, codeVerifier: verifier })
        fake.oauthErrorStatus = 200
        const reused = yield* failureOf(connector.exchange({ ...request, codeVerifier: verifier }))
        assert.strictEqual(reused.code, "connect_failed")
        assert.strictEqual(reused.platformCode, "invalid_grant")
        assert.isFalse(reused.needsReconnect)
        const badApp = yield* aConnector({ shortvideo: { ...options(fake).shortvideo, clientSecret: "wrong" } })
        const invalidClient = yield* failureOf(badApp.exchange({ ...request, codeVerifier: verifier }))
        assert.strictEqual(invalidClient.platformCode, "invalid_client")
        assert.notInclude(JSON.stringify(invalidClient), code)
      })
    )
  )

  it.live("refreshes with the rotating refresh token: the newest is returned, the old one is dead and never sent again", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        const first = yield* Credentials.decode(tiktok, identity!.credentials)
        const refreshed = yield* refreshOf(connector, identity!.credentials)
        assert.strictEqual(refreshed._tag, "Refreshed")
        if (refreshed._tag !== "Refreshed") return
        const second = yield* Credentials.decode(tiktok, refreshed.credentials)
        assert.notStrictEqual(second.refresh_token, first.refresh_token)
        assert.notStrictEqual(second.access_token, first.access_token)
        assert.isDefined(fake.validToken(second.refresh_token, ["refresh"]))
        assert.isUndefined(fake.validToken(first.refresh_token, ["refresh"]))
        assert.deepStrictEqual(second.scopes, identity!.scopes)
        assert.isAbove(refreshed.accessTokenExpiresAt!, Date.now())
        // The old credentials again (a step that read them before the new ones were stored): the
        // process hands back the rotated tokens and does not spend the dead refresh token.
        const again = yield* refreshOf(connector, identity!.credentials)
        assert.deepStrictEqual(again, refreshed)
        assert.strictEqual(fake.count("token:refresh_token"), 1)
        // A refresh token TikTok no longer takes: a reconnect, the token not in the failure.
        fake.validToken(second.refresh_token, ["refresh"])!.revoked = true
        const refused = yield* failureOf(refreshOf(connector, refreshed.credentials))
        assert.strictEqual(refused.code, "token_expired")
        assert.isTrue(refused.needsReconnect)
        assert.strictEqual(refused.platformCode, "invalid_grant")
        assert.notInclude(JSON.stringify(refused), second.refresh_token)
      })
    )
  )

  it.live("a refresh token past its lifetime is not sent: the person must reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        const credentials = yield* Credentials.decode(tiktok, identity!.credentials)
        const lapsed = Credentials.encode(tiktok, { ...credentials, refresh_expires_at: Date.now() - 1 })
        const failure = yield* failureOf(refreshOf(connector, lapsed))
        assert.strictEqual(failure.platformCode, "refresh_token_expired")
        assert.isTrue(failure.needsReconnect)
        assert.strictEqual(fake.count("token:refresh_token"), 0)
      })
    )
  )

  it.live("a 5xx on refresh is transient: retried, then retryable without a reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        fake.faults.inject("token:refresh_token", { status: 503, json: { error: "server_error" } }, 2)
        const failure = yield* failureOf(refreshOf(connector, identity!.credentials))
        assert.strictEqual(failure.code, "platform_unavailable")
        assert.isTrue(failure.retryable)
        assert.isFalse(failure.needsReconnect)
        assert.strictEqual(fake.count("token:refresh_token"), 2)
        const later = yield* refreshOf(connector, identity!.credentials)
        assert.strictEqual(later._tag, "Refreshed")
      })
    )
  )

  it.live("a lost refresh answer is not re-sent: the refresh token may already have rotated", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        fake.faults.injectAfter("token:refresh_token", { lose: true })
        const failure = yield* failureOf(refreshOf(connector, identity!.credentials))
        assert.strictEqual(failure.code, "platform_unavailable")
        assert.isTrue(failure.retryable)
        assert.strictEqual(fake.count("token:refresh_token"), 1)
      })
    )
  )

  it.live("an app whose credentials TikTok refuses does not ask the person to reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        const badApp = yield* aConnector({ shortvideo: { ...options(fake).shortvideo, clientSecret: "rotated-by-operator" } })
        const failure = yield* failureOf(refreshOf(badApp, identity!.credentials))
        assert.strictEqual(failure.platformCode, "invalid_client")
        assert.isFalse(failure.needsReconnect)
        assert.isTrue(failure.retryable)
      })
    )
  )

  it.live("revokes the token at TikTok: its tokens stop working", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        const credentials = yield* Credentials.decode(tiktok, identity!.credentials)
        const revoked = yield* connector.revoke({ platform: "shortvideo", sandbox: false, credentials: identity!.credentials })
        assert.deepStrictEqual(revoked, { _tag: "Revoked" })
        assert.strictEqual(fake.count("revoke"), 1)
        const sent = fake.requests.find((r) => r.route === "revoke")!
        assert.strictEqual(sent.params.token, credentials.access_token)
        assert.isUndefined(fake.validToken(credentials.access_token))
        assert.isUndefined(fake.validToken(credentials.refresh_token))
        const after = yield* failureOf(connector.creatorInfo({ platform: "shortvideo", sandbox: false, credentials: identity!.credentials }))
        assert.strictEqual(after.code, "token_expired")
        assert.strictEqual(after.platformCode, "access_token_invalid")
        // The refresh is what says the consent is gone.
        const refresh = yield* failureOf(refreshOf(connector, identity!.credentials))
        assert.isTrue(refresh.needsReconnect)
      })
    )
  )

  it.live("an expired access token is not sent for creator info, and asks for a refresh, not a reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        const credentials = yield* Credentials.decode(tiktok, identity!.credentials)
        const expired = Credentials.encode(tiktok, { ...credentials, expires_at: Date.now() - 1 })
        const failure = yield* failureOf(connector.creatorInfo({ platform: "shortvideo", sandbox: false, credentials: expired }))
        assert.strictEqual(failure.platformCode, "access_token_expired")
        assert.isFalse(failure.needsReconnect)
        assert.strictEqual(fake.count("creator_info"), 1)
      })
    )
  )

  it.live("reads the creator's current posting options", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "shortvideo")
        fake.creator.privacy_level_options = ["SELF_ONLY"]
        fake.creator.max_video_post_duration_sec = 60
        const info = yield* connector.creatorInfo({ platform: "shortvideo", sandbox: false, credentials: identity!.credentials })
        assert.deepStrictEqual(info.privacyLevelOptions, ["SELF_ONLY"])
        assert.strictEqual(info.maxVideoPostDurationSec, 60)
        assert.isTrue(info.duetDisabled)
      })
    )
  )

  it.live("without app credentials, says which settings are missing", () =>
    Effect.gen(function* () {
      const connector = yield* aConnector({ shortvideo: { clientKey: "key-only" } })
      assert.deepStrictEqual(connector.configured("shortvideo", false), ["POSTWIRE_TIKTOK_CLIENT_SECRET"])
      assert.deepStrictEqual(connector.configured("shortvideo", true), [])
      const unconfigured = yield* aConnector()
      assert.deepStrictEqual(unconfigured.configured("shortvideo", false), ["POSTWIRE_TIKTOK_CLIENT_KEY", "POSTWIRE_TIKTOK_CLIENT_SECRET"])
      const failure = yield* failureOf(
        unconfigured.authorizationUrl({ platform: "shortvideo", sandbox: false, state, redirectUri: callbackOf("shortvideo"), codeVerifier: verifier })
      )
      assert.strictEqual(failure.code, "platform_not_configured")
      assert.deepStrictEqual(failure.details, {
        platform: "TikTok",
        settings: "POSTWIRE_TIKTOK_CLIENT_KEY, POSTWIRE_TIKTOK_CLIENT_SECRET"
      })
    })
  )
})
