import { assert, describe, it } from "@effect/vitest"
import { Credentials, facebook } from "@postwire/platforms"
import { Effect } from "effect"
import * as FacebookOAuthFake from "./FacebookOAuthFake.ts"
import { aConnector, callbackOf, connect, consent, failureOf, state, verifier } from "../connect/connectHarness.ts"

type Fake = FacebookOAuthFake.FacebookOAuthFake

const options = (fake: Fake) => ({
  pages: {
    appId: fake.appId,
    appSecret: fake.appSecret,
    authorizeUrl: `${fake.url}/v23.0/dialog/oauth`,
    graphUrl: `${fake.url}/v23.0`
  }
})

const withFake = <A, E>(body: (fake: Fake, connector: Effect.Success<ReturnType<typeof aConnector>>) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* FacebookOAuthFake.scoped()
      const connector = yield* aConnector(options(fake))
      return yield* body(fake, connector)
    })
  )

const kopi = "101000000000001"
const bikes = "101000000000002"

describe("Facebook Pages connect", () => {
  it.live("sends the person to the login dialog with the Pages permissions, the state and rerequest", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const url = new URL(
          yield* connector.authorizationUrl({ platform: "pages", sandbox: false, state, redirectUri: callbackOf("pages"), codeVerifier: verifier })
        )
        assert.strictEqual(`${url.origin}${url.pathname}`, `${fake.url}/v23.0/dialog/oauth`)
        assert.strictEqual(url.searchParams.get("client_id"), fake.appId)
        assert.strictEqual(url.searchParams.get("scope"), "pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement")
        assert.strictEqual(url.searchParams.get("state"), state)
        assert.strictEqual(url.searchParams.get("auth_type"), "rerequest")
      })
    )
  )

  it.live("connects the two Pages the person ticked, each with its own Page token that does not expire", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const identities = yield* connect(connector, fake, "pages", { pageIds: [kopi, bikes] })
        assert.deepStrictEqual(
          identities.map((i) => [i.platformAccountId, i.handle, i.avatarUrl, i.accessTokenExpiresAt]),
          [
            [kopi, "Kopi Budi", "https://scontent.fbcdn.example/kopi.jpg", null],
            [bikes, "Budi Bikes", "https://scontent.fbcdn.example/bikes.jpg", null]
          ]
        )
        const [first, second] = yield* Effect.forEach(identities, (i) => Credentials.decode(facebook, i.credentials))
        assert.notStrictEqual(first!.page_access_token, second!.page_access_token)
        assert.strictEqual(fake.validToken(first!.page_access_token)?.pageId, kopi)
        assert.strictEqual(fake.validToken(second!.page_access_token)?.pageId, bikes)
        assert.strictEqual(fake.validToken(first!.user_access_token)?.kind, "long")
        assert.strictEqual(first!.user_id, fake.person.id)
        assert.isTrue(identities.every((i) => i.grantId === fake.person.id))
        assert.deepStrictEqual(identities[0]!.scopes, ["public_profile", "pages_show_list", "pages_manage_posts", "pages_read_engagement", "pages_manage_engagement"])
        // The short-lived user token was upgraded before the Pages were read.
        const accounts = fake.requests.find((r) => r.route === "accounts")!
        assert.strictEqual(fake.tokens.get(accounts.params.access_token!)?.kind, "long")
        assert.isDefined(accounts.params.appsecret_proof)
        assert.strictEqual(fake.count("debug_token"), 2)
      })
    )
  )

  it.live("reads the Pages through every page of results", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.pageSize = 2
        for (let n = 3; n <= 5; n++) {
          fake.pages.push({ id: `10100000000000${n}`, name: `Page ${n}`, category: "Shop", tasks: ["CREATE_CONTENT"], picture: `https://p.example/${n}.jpg` })
        }
        const identities = yield* connect(connector, fake, "pages")
        assert.deepStrictEqual(
          identities.map((i) => i.handle),
          ["Kopi Budi", "Budi Bikes", "Page 3", "Page 4", "Page 5"]
        )
        assert.strictEqual(fake.count("accounts"), 3)
      })
    )
  )

  it.live("connects only the Page ticked, none when none is ticked, and leaves out a Page it cannot post to", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const one = yield* connect(connector, fake, "pages", { pageIds: [bikes] })
        assert.deepStrictEqual(one.map((i) => i.platformAccountId), [bikes])
        const none = yield* connect(connector, fake, "pages", { pageIds: [] })
        assert.lengthOf(none, 0)
        fake.pages[0]!.tasks = ["ANALYZE", "MODERATE"]
        const postable = yield* connect(connector, fake, "pages")
        assert.deepStrictEqual(postable.map((i) => i.platformAccountId), [bikes])
      })
    )
  )

  it.live("connects without pages_manage_engagement: publishing does not need it", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.declinedScopes.push("pages_manage_engagement")
        const identities = yield* connect(connector, fake, "pages")
        assert.isAbove(identities.length, 0)
        assert.notInclude(identities[0]!.scopes, "pages_manage_engagement")
      })
    )
  )

  it.live("refuses a consent with a permission turned off, and reports Meta's refusal of a code", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.declinedScopes.push("pages_manage_posts")
        const declined = yield* failureOf(connect(connector, fake, "pages"))
        assert.strictEqual(declined.code, "connect_refused")
        assert.strictEqual(declined.platformCode, "scope_declined:pages_manage_posts")
        fake.declinedScopes.length = 0
        const query = yield* consent(connector, fake, "pages")
        const request = { platform: "pages" as const, sandbox: false, code: query.get("code")!, redirectUri: callbackOf("pages"), codeVerifier: verifier }
        yield* connector.exchange(request)
        const reused = yield* failureOf(connector.exchange(request))
        assert.strictEqual(reused.code, "connect_failed")
        assert.strictEqual(reused.platformCode, "100/36009")
      })
    )
  )

  it.live("a refused consent redirects with error_reason=user_denied and the state", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const query = yield* consent(connector, fake, "pages", { decision: "cancel" })
        assert.strictEqual(query.get("error"), "access_denied")
        assert.strictEqual(query.get("error_reason"), "user_denied")
        assert.strictEqual(query.get("state"), state)
      })
    )
  )

  it.live("has nothing to refresh: a Page token from a long-lived user token does not expire", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "pages")
        const before = fake.requests.length
        assert.deepStrictEqual(yield* connector.refresh({ platform: "pages", sandbox: false, credentials: identity!.credentials }), {
          _tag: "NothingToRefresh"
        })
        assert.strictEqual(fake.requests.length, before)
      })
    )
  )

  it.live("a Page token that does expire says when, from debug_token", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.pageTokenLifetimeSec = 5_184_000
        const [identity] = yield* connect(connector, fake, "pages", { pageIds: [kopi] })
        assert.isAbove(identity!.accessTokenExpiresAt!, Date.now() + 59 * 24 * 60 * 60 * 1000)
      })
    )
  )

  it.live("when debug_token will not say, a Page token keeps the documented answer: it does not expire", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        fake.faults.inject("debug_token", { status: 400, json: { error: { message: "(#100) Unsupported", type: "OAuthException", code: 100 } } })
        const [identity] = yield* connect(connector, fake, "pages", { pageIds: [kopi] })
        assert.isNull(identity!.accessTokenExpiresAt)
        fake.faults.inject("debug_token", { status: 503, json: {} }, 2)
        const transient = yield* failureOf(connect(connector, fake, "pages", { pageIds: [kopi] }))
        assert.strictEqual(transient.code, "platform_unavailable")
        assert.isTrue(transient.retryable)
      })
    )
  )

  it.live("revokes the person's permissions: every token of the consent dies; a dead token counts as revoked", () =>
    withFake((fake, connector) =>
      Effect.gen(function* () {
        const [identity] = yield* connect(connector, fake, "pages")
        const credentials = yield* Credentials.decode(facebook, identity!.credentials)
        const revoked = yield* connector.revoke({ platform: "pages", sandbox: false, credentials: identity!.credentials })
        assert.deepStrictEqual(revoked, { _tag: "Revoked" })
        const call = fake.requests.find((r) => r.route === "revoke")!
        assert.strictEqual(call.method, "DELETE")
        assert.strictEqual(call.path, `/v23.0/${fake.person.id}/permissions`)
        assert.isUndefined(fake.validToken(credentials.page_access_token))
        assert.isUndefined(fake.validToken(credentials.user_access_token))
        assert.deepStrictEqual(yield* connector.revoke({ platform: "pages", sandbox: false, credentials: identity!.credentials }), {
          _tag: "Revoked"
        })
        const pageOnly = Credentials.encode(facebook, { page_access_token: credentials.page_access_token })
        assert.deepStrictEqual(yield* connector.revoke({ platform: "pages", sandbox: false, credentials: pageOnly }), {
          _tag: "Unsupported"
        })
      })
    )
  )

  it.live("without the Meta app's id and secret, says which settings are missing", () =>
    Effect.gen(function* () {
      const connector = yield* aConnector()
      assert.deepStrictEqual(connector.configured("pages", false), ["POSTWIRE_META_APP_ID", "POSTWIRE_META_APP_SECRET"])
      assert.deepStrictEqual(connector.configured("photo", false), ["POSTWIRE_INSTAGRAM_APP_ID", "POSTWIRE_INSTAGRAM_APP_SECRET"])
      assert.deepStrictEqual(connector.configured("textpost", false), ["POSTWIRE_THREADS_APP_ID", "POSTWIRE_THREADS_APP_SECRET"])
      const failure = yield* failureOf(
        connector.exchange({ platform: "pages", sandbox: false, code: "c", redirectUri: callbackOf("pages"), codeVerifier: verifier })
      )
      assert.strictEqual(failure.code, "platform_not_configured")
    })
  )
})
