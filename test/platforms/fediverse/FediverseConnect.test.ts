/**
 * Connecting a Mastodon account against the fake server: the typed address, one app per server,
 * the authorization page with PKCE, the code trade, the identity, refusals, and revoke.
 */
import { assert, describe, it } from "@effect/vitest"
import { UrlSafety } from "@postwire/core"
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
  const connector = FediverseConnect.make({ ...FediverseConnect.defaults, allowLoopback: true }, wire)
  return { fake, connector }
})

/** What a name resolves to, as a DNS server would answer (the names below are not real). */
const dns: UrlSafety.Resolver["Service"] = {
  resolve: (host) => {
    const answers: Record<string, ReadonlyArray<string>> = {
      "mastodon.internal.example": ["10.20.30.40"],
      "mixed.example": ["93.184.216.34", "192.168.1.20"],
      "metadata.example": ["169.254.169.254"],
      "social.example": ["93.184.216.34"]
    }
    return Object.hasOwn(answers, host) ? Effect.succeed(answers[host]!) : Effect.fail(new UrlSafety.ResolveError({ host }))
  }
}

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
        assert.strictEqual(FediverseConnect.serverAddress("http://mastodon.social"), "http://mastodon.social")

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

  it.live("refuses loopback, private, link-local and metadata addresses, typed or resolved, before calling them", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* MastodonFake.make()
        const wire = yield* makeWire
        const strict = FediverseConnect.make(FediverseConnect.defaults, wire, dns)
        const begin = (connector: FediverseConnect.FediverseConnector, server: string) =>
          Effect.flip(connector.begin({ platform: "fediverse", sandbox: false, state: "s", redirectUri, codeVerifier: verifier, fields: { server } }))
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          // typed, platform code, what the person reads
          [fake.origin, "server_not_https", "127.0.0.1 is a loopback address, refused unless the server runs with `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1`"],
          [fake.origin.replace("http:", "https:"), "server_loopback", "127.0.0.1 is a loopback address"],
          ["localhost", "server_loopback", "localhost is a loopback address"],
          ["https://[::1]", "server_loopback", "is a loopback address"],
          ["10.0.0.5", "server_private_address", "must be a Mastodon server on the public internet: a private address"],
          ["192.168.1.20", "server_private_address", "a private address"],
          ["169.254.169.254", "server_link_local", "a link-local address"],
          ["https://[fd00::1]", "server_unique_local", "a unique-local address"],
          ["mastodon.internal.example", "server_private_address", "mastodon.internal.example resolves to 10.20.30.40, a private address"],
          ["@maya@mixed.example", "server_private_address", "mixed.example resolves to 192.168.1.20, a private address"],
          ["metadata.example", "server_link_local", "metadata.example resolves to 169.254.169.254, a link-local address"],
          ["nowhere.example", "server_unresolvable", "nowhere.example does not resolve to an address"]
        ]
        for (const [typed, platformCode, says] of cases) {
          const refused = yield* begin(strict, typed)
          assert.strictEqual(refused.code, "invalid_request", typed)
          assert.strictEqual(refused.platformCode, platformCode, typed)
          assert.strictEqual(refused.details?.field, "fields.server", typed)
          const detail = refused.details?.detail as { en: string; id: string }
          assert.include(detail.en, says, typed)
          assert.notStrictEqual(detail.id, detail.en)
        }
        const indonesian = (yield* begin(strict, "10.0.0.5")).details?.detail as { id: string }
        assert.strictEqual(indonesian.id, "harus berupa server Mastodon di internet publik: alamat privat")
        // Nothing reached the server on loopback.
        assert.strictEqual(fake.requests.length, 0)

        // A public server passes the check (it is then called: here it answers nothing).
        const unreachable = yield* begin(strict, "social.example")
        assert.strictEqual(unreachable.platformCode, "server_unreachable")

        // The deployment's loopback switch lets the loopback server through, never a private one.
        const loose = FediverseConnect.make({ ...FediverseConnect.defaults, allowLoopback: true }, wire, dns)
        const begun = yield* loose.begin({ platform: "fediverse", sandbox: false, state: "s", redirectUri, codeVerifier: verifier, fields: { server: fake.origin } })
        assert.strictEqual(begun._tag, "Redirect")
        assert.strictEqual(fake.count("apps"), 1)
        assert.strictEqual((yield* begin(loose, "10.0.0.5")).platformCode, "server_private_address")
        assert.strictEqual((yield* begin(loose, "mastodon.internal.example")).platformCode, "server_private_address")
        const plain = yield* begin(loose, "http://social.example")
        assert.strictEqual(plain.platformCode, "server_not_https")
        assert.deepInclude(plain.details?.detail, { en: "it must use https" })
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
