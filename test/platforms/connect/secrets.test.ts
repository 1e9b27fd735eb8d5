import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Tracer } from "effect"
import * as FacebookOAuthFake from "../facebook/FacebookOAuthFake.ts"
import * as InstagramOAuthFake from "../instagram/InstagramOAuthFake.ts"
import type { OAuthFake } from "../fakes/OAuthFake.ts"
import * as TikTokOAuthFake from "../tiktok/TikTokOAuthFake.ts"
import { aConnector, callbackOf, connect, verifier } from "./connectHarness.ts"

/** Every secret a fake knows: app secrets, codes, tokens. */
const secretsOf = (fake: OAuthFake, appSecret: string) => [appSecret, ...fake.codes.keys(), ...fake.tokens.keys()]

describe("connect secrets", () => {
  it.live("no token, code or app secret reaches a trace span or a failure", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      const tiktok = yield* TikTokOAuthFake.scoped()
      const instagram = yield* InstagramOAuthFake.scoped()
      const facebook = yield* FacebookOAuthFake.scoped()
      const connector = yield* aConnector({
        shortvideo: { clientKey: tiktok.clientKey, clientSecret: tiktok.clientSecret, authorizeUrl: `${tiktok.url}/v2/auth/authorize/`, apiUrl: tiktok.url },
        photo: {
          appId: instagram.appId,
          appSecret: instagram.appSecret,
          authorizeUrl: `${instagram.url}/oauth/authorize`,
          tokenUrl: `${instagram.url}/oauth/access_token`,
          exchangeUrl: `${instagram.url}/access_token`,
          refreshUrl: `${instagram.url}/refresh_access_token`,
          graphUrl: `${instagram.url}/v23.0`
        },
        pages: { appId: facebook.appId, appSecret: facebook.appSecret, authorizeUrl: `${facebook.url}/v23.0/dialog/oauth`, graphUrl: `${facebook.url}/v23.0` }
      })
      const failures: Array<unknown> = []
      yield* Effect.gen(function* () {
        const [video] = yield* connect(connector, tiktok, "shortvideo")
        yield* connector.refresh({ platform: "shortvideo", sandbox: false, credentials: video!.credentials })
        failures.push(Result.getFailure(yield* Effect.result(connector.refresh({ platform: "shortvideo", sandbox: false, credentials: video!.credentials }))))
        yield* connector.revoke({ platform: "shortvideo", sandbox: false, credentials: video!.credentials })
        const [photo] = yield* connect(connector, instagram, "photo")
        failures.push(Result.getFailure(yield* Effect.result(connector.refresh({ platform: "photo", sandbox: false, credentials: photo!.credentials }))))
        const used = [...instagram.codes.keys()][0]!
        failures.push(
          Result.getFailure(
            yield* Effect.result(connector.exchange({ platform: "photo", sandbox: false, code: used, redirectUri: callbackOf("photo"), codeVerifier: verifier }))
          )
        )
        const pages = yield* connect(connector, facebook, "pages")
        yield* connector.revoke({ platform: "pages", sandbox: false, credentials: pages[0]!.credentials })
      }).pipe(Effect.provideService(Tracer.Tracer, tracer))

      const secrets = [
        ...secretsOf(tiktok, tiktok.clientSecret),
        ...secretsOf(instagram, instagram.appSecret),
        ...secretsOf(facebook, facebook.appSecret),
        verifier
      ]
      assert.isAbove(secrets.length, 15)
      const httpSpans = spans.filter((s) => s.attributes.has("url.full"))
      assert.isAbove(httpSpans.length, 10)
      const withToken = httpSpans.map((s) => String(s.attributes.get("url.full"))).filter((url) => url.includes("access_token="))
      assert.isNotEmpty(withToken)
      assert.isTrue(withToken.every((url) => url.includes("access_token=REDACTED")), withToken.join("\n"))
      const traced = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: [...s.attributes], events: s.events })))
      const failed = JSON.stringify(failures) + failures.map(String).join("\n")
      assert.strictEqual(failures.filter((f) => f !== undefined).length, 3)
      for (const secret of secrets) {
        assert.notInclude(traced, secret, "a secret is in a trace span")
        assert.notInclude(failed, secret, "a secret is in a failure")
      }
    }).pipe(Effect.scoped)
  )
})
