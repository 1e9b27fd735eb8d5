/**
 * Connecting a Mastodon account against the fake server: the typed address, one app per server,
 * the authorization page with PKCE, the code trade, the identity, refusals, and revoke.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as FediverseConnect from "../../../packages/platforms/src/fediverse/FediverseConnect.ts"
import * as FediverseCredentials from "../../../packages/platforms/src/fediverse/FediverseCredentials.ts"
import * as MastodonFake from "./MastodonFake.ts"
import { makeWire } from "./support.ts"

const redirectUri = "http://postwire.test/connect/callback/fediverse"
const verifier = "verifier-0123456789-0123456789-0123456789-abcdef"

const setUp = Effect.gen(function* () {
  const fake = yield* MastodonFake.make()
  const wire = yield* makeWire
  const connector = FediverseConnect.make({ ...FediverseConnect.defaults, allowHttp: true }, wire)
  return { fake, connector }
})

/** Starts a connect with the typed server, follows the authorization page; the callback's query and the memo. */
const authorize = (connector: FediverseConnect.FediverseConnector, server: string, state = "st_1") =>
  Effect.gen(function* () {
    const begun = yield* connector.begin({ platform: "fediverse", sandbox: false, state, redirectUri, codeVerifier: verifier, fields: { server } })
    if (begun._tag !== "Redirect") throw new Error("Mastodon always redirects")
    const answer = yield* Effect.promise(() => fetch(begun.url, { redirect: "manual" }))
    const location = answer.headers.get("location")
    if (location === null) throw new Error(`no redirect from ${begun.url}: ${answer.status}`)
    return { url: new URL(begun.url), callback: new URL(location), memo: begun.memo }
  })

describe("Mastodon connect", () => {
  it.live("registers an app once per server, sends the person to its authorization page, and connects", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, connector } = yield* setUp
        const first = yield* authorize(connector, fake.origin)
        assert.strictEqual(`${first.url.origin}${first.url.pathname}`, `${fake.origin}/oauth/authorize`)
        assert.strictEqual(first.url.searchParams.get("response_type"), "code")
        assert.strictEqual(first.url.searchParams.get("client_id"), fake.apps[0]!.client_id)
        assert.strictEqual(first.url.searchParams.get("scope"), "read:accounts read:statuses write:statuses write:media")
        assert.strictEqual(first.url.searchParams.get("code_challenge_method"), "S256")
        assert.strictEqual(first.callback.searchParams.get("state"), "st_1")
        const app = fake.requests.find((r) => r.route === "apps")!
        assert.strictEqual(app.params.client_name, "Postwire")
        assert.strictEqual(app.params.redirect_uris, redirectUri)

        const [identity] = yield* connector.exchange({
          platform: "fediverse",
          sandbox: false,
          code: first.callback.searchParams.get("code")!,
          redirectUri,
          codeVerifier: verifier,
          memo: first.memo
        })
        assert.strictEqual(identity!.handle, `maya@${new URL(fake.origin).host}`)
        assert.strictEqual(identity!.platformAccountId, `${fake.owner.id}@${new URL(fake.origin).host}`)
        assert.strictEqual(identity!.displayName, "Maya Bakes")
        assert.isNull(identity!.accessTokenExpiresAt)
        const credentials = yield* FediverseCredentials.decode(identity!.credentials)
        assert.strictEqual(credentials.server, fake.origin)
        assert.strictEqual(credentials.account_id, fake.owner.id)
        assert.isFalse(fake.tokens.get(credentials.access_token)!.revoked)

        // A second connect to the same server reuses the app; the address may be typed many ways.
        yield* authorize(connector, new URL(fake.origin).host.replace(/^/, "http://"))
        yield* authorize(connector, `${fake.origin}/`)
        assert.strictEqual(fake.count("apps"), 1)
      })
    )
  )

  it.live("refuses an address that is not a server, a reused code and a denied consent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, connector } = yield* setUp
        for (const typed of ["", "not a server", "ftp://mastodon.social", "https://mastodon.social/@maya", "https://user:pw@mastodon.social"]) {
          const result = yield* Effect.result(connector.begin({ platform: "fediverse", sandbox: false, state: "s", redirectUri, codeVerifier: verifier, fields: { server: typed } }))
          assert.isTrue(Result.isFailure(result), typed)
          if (Result.isFailure(result)) assert.strictEqual(result.failure.platformCode, "server_address")
        }
        const closed = yield* Effect.result(
          connector.begin({ platform: "fediverse", sandbox: false, state: "s", redirectUri, codeVerifier: verifier, fields: { server: "http://127.0.0.1:9" } })
        )
        assert.isTrue(Result.isFailure(closed))
        if (Result.isFailure(closed)) {
          assert.strictEqual(closed.failure.code, "invalid_request")
          assert.strictEqual(closed.failure.platformCode, "server_unreachable")
          assert.strictEqual(closed.failure.details?.field, "fields.server")
        }
        assert.strictEqual(FediverseConnect.serverAddress("@maya@mastodon.social"), "https://mastodon.social")
        assert.strictEqual(FediverseConnect.serverAddress("Mastodon.Social"), "https://mastodon.social")
        assert.isUndefined(FediverseConnect.serverAddress("http://mastodon.social"))

        const { callback, memo } = yield* authorize(connector, fake.origin)
        const code = callback.searchParams.get("code")!
        const exchange = { platform: "fediverse", sandbox: false, code, redirectUri, codeVerifier: verifier, memo } as const
        yield* connector.exchange(exchange)
        const reused = yield* Effect.result(connector.exchange(exchange))
        assert.isTrue(Result.isFailure(reused))
        if (Result.isFailure(reused)) {
          assert.strictEqual(reused.failure.code, "connect_failed")
          assert.strictEqual(reused.failure.platformCode, "invalid_grant")
        }
        // A wrong PKCE verifier is refused too.
        const other = yield* authorize(connector, fake.origin)
        const wrongVerifier = yield* Effect.result(
          connector.exchange({ ...exchange, code: other.callback.searchParams.get("code")!, codeVerifier: `${verifier}-other` })
        )
        assert.isTrue(Result.isFailure(wrongVerifier))

        fake.deny = true
        const denied = yield* authorize(connector, fake.origin)
        assert.strictEqual(denied.callback.searchParams.get("error"), "access_denied")
      })
    )
  )

  it.live("revokes the token on disconnect; the account's calls are refused after", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { fake, connector } = yield* setUp
        const { callback, memo } = yield* authorize(connector, fake.origin)
        const [identity] = yield* connector.exchange({ platform: "fediverse", sandbox: false, code: callback.searchParams.get("code")!, redirectUri, codeVerifier: verifier, memo })
        const refreshed = yield* connector.refresh(identity!.credentials)
        assert.strictEqual(refreshed._tag, "NothingToRefresh")
        const revoked = yield* connector.revoke(identity!.credentials)
        assert.strictEqual(revoked._tag, "Revoked")
        const credentials = yield* FediverseCredentials.decode(identity!.credentials)
        assert.isTrue(fake.tokens.get(credentials.access_token)!.revoked)
        const request = fake.requests.find((r) => r.route === "revoke")!
        assert.strictEqual(request.params.client_id, credentials.client_id)
        assert.strictEqual(request.params.token, credentials.access_token)
        const after = yield* Effect.promise(() =>
          fetch(`${fake.origin}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${credentials.access_token}` } })
        )
        assert.strictEqual(after.status, 401)
      })
    )
  )
})
