import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import type { Credentials, youtube } from "@postwire/platforms"
import { Effect } from "effect"
import { aConnector, callbackOf, failureOf, state, verifier } from "../connect/connectHarness.ts"
import * as YouTubeFake from "./YouTubeFake.ts"

type Fake = YouTubeFake.YouTubeFake

const options = (fake: Fake) =>
  ({
    video: {
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      authorizeUrl: `${fake.url}/o/oauth2/v2/auth`,
      tokenUrl: `${fake.url}/token`,
      revokeUrl: `${fake.url}/revoke`,
      apiUrl: `${fake.url}/youtube/v3`
    }
  }) as never

const withFake = <A, E>(body: (fake: Fake, connector: Effect.Success<ReturnType<typeof aConnector>>) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* YouTubeFake.make()
      const connector = yield* aConnector(options(fake))
      return yield* body(fake, connector)
    })
  )

const redirectUri = callbackOf("video")
const exchange = (connector: Effect.Success<ReturnType<typeof aConnector>>, code: string) =>
  connector.exchange({ platform: "video", sandbox: false, code, redirectUri, codeVerifier: verifier })

describe("YouTube connect (video)", () => {
  it.live("asks Google for offline access with consent, both scopes, state and an S256 challenge", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const url = new URL(yield* connector.authorizationUrl({ platform: "video", sandbox: false, state, redirectUri, codeVerifier: verifier }))
        assert.strictEqual(`${url.origin}${url.pathname}`, `${fake.url}/o/oauth2/v2/auth`)
        assert.strictEqual(url.searchParams.get("client_id"), fake.clientId)
        assert.strictEqual(url.searchParams.get("access_type"), "offline")
        assert.strictEqual(url.searchParams.get("prompt"), "consent")
        assert.strictEqual(url.searchParams.get("response_type"), "code")
        assert.strictEqual(url.searchParams.get("scope"), `${YouTubeFake.uploadScope} ${YouTubeFake.commentsScope}`)
        assert.strictEqual(url.searchParams.get("state"), state)
        assert.strictEqual(url.searchParams.get("code_challenge_method"), "S256")
        assert.strictEqual(url.searchParams.get("code_challenge"), createHash("sha256").update(verifier).digest("base64url"))
      })
    )
  )

  it.live("connects the channel: tokens, the channel from channels.list?mine=true, its uploads playlist", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const identities = yield* exchange(connector, fake.issueCode(redirectUri, verifier))
        assert.strictEqual(identities.length, 1)
        const [channel] = identities
        assert.deepInclude(channel!, {
          platform: "video",
          platformAccountId: fake.channels[0]!.id,
          handle: "mayabakes",
          displayName: "Maya Bakes",
          refreshTokenExpiresAt: null
        })
        const credentials = JSON.parse(channel!.credentials) as Credentials.Stored<typeof youtube>
        assert.strictEqual(credentials.uploads_playlist_id, fake.channels[0]!.uploads)
        assert.isTrue(fake.refreshTokens.has(credentials.refresh_token))
        assert.isAbove(channel!.accessTokenExpiresAt!, Date.now() + 3_000_000)
        // A code is single use.
        const again = yield* failureOf(exchange(connector, "4/0Aused"))
        assert.deepInclude(again, { code: "connect_failed", platformCode: "invalid_grant" })
      })
    )
  )

  it.live("several channels on one consent: one identity each, sharing the grant", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.channels.push({ id: "UCbrand00000000000000000b", title: "Maya's Kitchen", customUrl: "@mayaskitchen", uploads: "UUbrand00000000000000000b" })
        const identities = yield* exchange(connector, fake.issueCode(redirectUri, verifier))
        assert.deepStrictEqual(identities.map((i) => i.handle), ["mayabakes", "mayaskitchen"])
        assert.strictEqual(identities[0]!.grantId, identities[1]!.grantId)
      })
    )
  )

  it.live("a consent without youtube.upload is refused; a wrong verifier is refused by Google", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const declined = yield* failureOf(exchange(connector, fake.issueCode(redirectUri, verifier, [YouTubeFake.commentsScope.replace("force-ssl", "readonly")])))
        assert.strictEqual(declined.code, "connect_refused")
        const wrong = yield* failureOf(exchange(connector, fake.issueCode(redirectUri, "another-verifier-0123456789-0123456789-abcdef")))
        assert.deepInclude(wrong, { code: "connect_failed", platformCode: "invalid_grant" })
        fake.channels.length = 0
        const none = yield* failureOf(exchange(connector, fake.issueCode(redirectUri, verifier)))
        assert.deepInclude(none, { code: "connect_failed", platformCode: "no_channel" })
      })
    )
  )

  it.live("refreshes the access token with the refresh token; a revoked grant needs a reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* exchange(connector, fake.issueCode(redirectUri, verifier))
        const refreshed = yield* connector.refresh({ platform: "video", sandbox: false, credentials: identity!.credentials })
        assert.strictEqual(refreshed._tag, "Refreshed")
        if (refreshed._tag !== "Refreshed") return
        const before = JSON.parse(identity!.credentials) as Credentials.Stored<typeof youtube>
        const after = JSON.parse(refreshed.credentials) as Credentials.Stored<typeof youtube>
        assert.notStrictEqual(after.access_token, before.access_token)
        assert.strictEqual(after.refresh_token, before.refresh_token)
        fake.refreshTokens.clear()
        const gone = yield* failureOf(connector.refresh({ platform: "video", sandbox: false, credentials: identity!.credentials }))
        assert.deepInclude(gone, { code: "token_expired", platformCode: "invalid_grant", needsReconnect: true })
      })
    )
  )

  it.live("disconnect revokes the grant at Google; a grant already gone counts as revoked", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* exchange(connector, fake.issueCode(redirectUri, verifier))
        const { refresh_token } = JSON.parse(identity!.credentials) as Credentials.Stored<typeof youtube>
        const revoked = yield* connector.revoke({ platform: "video", sandbox: false, credentials: identity!.credentials })
        assert.strictEqual(revoked._tag, "Revoked")
        assert.isFalse(fake.refreshTokens.has(refresh_token))
        assert.strictEqual(fake.requests.find((r) => r.route === "revoke")!.params.token, refresh_token)
        const again = yield* connector.revoke({ platform: "video", sandbox: false, credentials: identity!.credentials })
        assert.strictEqual(again._tag, "Revoked")
      })
    )
  )
})
