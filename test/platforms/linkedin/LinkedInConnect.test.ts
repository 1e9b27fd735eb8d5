import { assert, describe, it } from "@effect/vitest"
import { Credentials, linkedin, Registry } from "@postwire/platforms"
import { TokenRenewal } from "@postwire/core"
import { Effect } from "effect"
import { aConnector, callbackOf, connect, consent, failureOf, state, verifier } from "../connect/connectHarness.ts"
import * as LinkedInOAuthFake from "./LinkedInOAuthFake.ts"

type Fake = LinkedInOAuthFake.LinkedInOAuthFake

const options = (fake: Fake, pages = true) => ({
  professional: {
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    authorizeUrl: `${fake.url}/oauth/v2/authorization`,
    tokenUrl: `${fake.url}/oauth/v2/accessToken`,
    revokeUrl: `${fake.url}/oauth/v2/revoke`,
    apiUrl: fake.url,
    pages
  }
})

const withFake = <A, E>(
  body: (fake: Fake, connector: Effect.Success<ReturnType<typeof aConnector>>) => Effect.Effect<A, E>,
  arrange: (fake: Fake) => void = () => {},
  pages = true
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* LinkedInOAuthFake.scoped()
      arrange(fake)
      const connector = yield* aConnector(options(fake, pages))
      return yield* body(fake, connector)
    })
  )

const day = 86_400_000

describe("LinkedIn connect", () => {
  it.live("sends the person to LinkedIn's authorization page with the app's client id, scopes and state", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const url = new URL(
          yield* connector.authorizationUrl({ platform: "professional", sandbox: false, state, redirectUri: callbackOf("professional"), codeVerifier: verifier })
        )
        assert.strictEqual(`${url.origin}${url.pathname}`, `${fake.url}/oauth/v2/authorization`)
        assert.strictEqual(url.searchParams.get("response_type"), "code")
        assert.strictEqual(url.searchParams.get("client_id"), fake.clientId)
        assert.strictEqual(url.searchParams.get("scope"), "openid profile w_member_social w_organization_social r_organization_social r_organization_admin")
        assert.strictEqual(url.searchParams.get("state"), state)
        const cancelled = yield* consent(connector, fake, "professional", { decision: "cancel" })
        assert.strictEqual(cancelled.get("error"), "user_cancelled_authorize")
        assert.strictEqual(cancelled.get("state"), state)
      })
    )
  )

  it.live("connects the member and each page they may post for, from one consent, for the person to choose", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const before = Date.now()
        const identities = yield* connect(connector, fake, "professional")
        assert.deepStrictEqual(
          identities.map((i) => [i.platformAccountId, i.handle, i.displayName]),
          [
            ["urn:li:person:Xk4mR2pQ9a", "Dewi Lestari", "Dewi Lestari"],
            ["urn:li:organization:2414183", "roti-bakery", "Roti Bakery"],
            ["urn:li:organization:5515715", "kopi-co", "Kopi Co"]
          ]
        )
        for (const identity of identities) {
          assert.strictEqual(identity.grantId, "Xk4mR2pQ9a")
          assert.isAtLeast(identity.accessTokenExpiresAt!, before + 60 * day)
          assert.isAtLeast(identity.refreshTokenExpiresAt!, before + 364 * day)
          const credentials = yield* Credentials.decode(linkedin, identity.credentials)
          assert.strictEqual(credentials.member, "urn:li:person:Xk4mR2pQ9a")
          assert.strictEqual(fake.validToken(credentials.access_token)?.kind, "access")
          assert.strictEqual(fake.validToken(credentials.refresh_token)?.kind, "refresh")
        }
        assert.strictEqual(identities[0]!.avatarUrl, fake.person.picture)
        const acls = fake.requests.find((r) => r.route === "acls")!
        assert.strictEqual(acls.headers["linkedin-version"], "202610")
        assert.strictEqual(acls.headers["x-restli-protocol-version"], "2.0.0")
        assert.strictEqual(Registry.make().get("professional")?.capabilities?.choosesAccounts, true)
      })
    )
  )

  it.live("connects the member alone when pages are off (an app without the Community Management API)", () =>
    withFake(
      (fake, connector) =>
        Effect.gen(function* () {
          const identities = yield* connect(connector, fake, "professional")
          assert.deepStrictEqual(
            identities.map((i) => i.platformAccountId),
            ["urn:li:person:Xk4mR2pQ9a"]
          )
          assert.strictEqual(fake.count("acls"), 0)
        }),
      (fake) => {
        fake.appScopes = ["openid", "profile", "w_member_social"]
      },
      false
    )
  )

  it.live("refreshes with the refresh token; its own lifetime is not renewed; a refused one asks for a reconnect", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "professional")
        fake.advance(53 * day)
        const refreshed = yield* connector.refresh({ platform: "professional", sandbox: false, credentials: identity!.credentials })
        assert.strictEqual(refreshed._tag, "Refreshed")
        if (refreshed._tag !== "Refreshed") return
        assert.isAtLeast(refreshed.accessTokenExpiresAt!, Date.now() + 59 * day)
        // 365 days from the consent, not from the refresh: 312 days are left.
        assert.isBelow(refreshed.refreshTokenExpiresAt!, Date.now() + 313 * day)
        const renewed = yield* Credentials.decode(linkedin, refreshed.credentials)
        assert.strictEqual(fake.validToken(renewed.access_token)?.kind, "access")
        fake.advance(320 * day)
        const ended = yield* failureOf(connector.refresh({ platform: "professional", sandbox: false, credentials: refreshed.credentials }))
        assert.strictEqual(ended.code, "token_expired")
        assert.strictEqual(ended.platformCode, "invalid_request")
        assert.isTrue(ended.needsReconnect)
      })
    )
  )

  it.live("without programmatic refresh, the person must reconnect when the renewal comes due, a week before the 60 days end", () =>
    withFake(
      (fake, connector) =>
        Effect.gen(function* () {
          const issued = Date.now()
          const [identity] = yield* connect(connector, fake, "professional")
          assert.isUndefined((yield* Credentials.decode(linkedin, identity!.credentials)).refresh_token)
          // The person must be back by the access token's end.
          assert.strictEqual(identity!.refreshTokenExpiresAt, identity!.accessTokenExpiresAt)
          const policy = Registry.make().get("professional")!.tokenRenewal
          const due = TokenRenewal.nextRefreshAt(policy, issued, identity!.accessTokenExpiresAt)!
          assert.isAtLeast(identity!.accessTokenExpiresAt! - due, 7 * day - 1_000)
          const refused = yield* failureOf(connector.refresh({ platform: "professional", sandbox: false, credentials: identity!.credentials }))
          assert.strictEqual(refused.code, "token_expired")
          assert.strictEqual(refused.platformCode, "no_refresh_token")
          assert.isTrue(refused.needsReconnect)
          assert.strictEqual(fake.count("refresh"), 0)
        }),
      (fake) => {
        fake.refreshTokens = false
      }
    )
  )

  it.live("a refused code, an app without the pages product, and LinkedIn down end the connect as they should", () =>
    withFake(
      (fake, connector) =>
        Effect.gen(function* () {
          const query = yield* consent(connector, fake, "professional")
          const code = query.get("code")!
          yield* connector.exchange({ platform: "professional", sandbox: false, code, redirectUri: callbackOf("professional"), codeVerifier: verifier })
          const reused = yield* failureOf(
            connector.exchange({ platform: "professional", sandbox: false, code, redirectUri: callbackOf("professional"), codeVerifier: verifier })
          )
          assert.strictEqual(reused.code, "connect_failed")
          assert.strictEqual(reused.platformCode, "invalid_request")
          fake.faults.inject("token", { status: 503, json: { status: 503, message: "Service Unavailable" } }, 2)
          const down = yield* failureOf(connect(connector, fake, "professional"))
          assert.strictEqual(down.code, "platform_unavailable")
          assert.isTrue(down.retryable)
          fake.appScopes = ["openid", "profile", "w_member_social"]
          const refused = yield* consent(connector, fake, "professional")
          assert.strictEqual(refused.get("error"), "unauthorized_scope_error")
        })
    )
  )

  it.live("revokes the consent's token: every account of it stops working", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [member, page] = yield* connect(connector, fake, "professional")
        assert.deepStrictEqual(yield* connector.revoke({ platform: "professional", sandbox: false, credentials: member!.credentials }), { _tag: "Revoked" })
        const credentials = yield* Credentials.decode(linkedin, page!.credentials)
        assert.isUndefined(fake.validToken(credentials.access_token))
      })
    )
  )
})
