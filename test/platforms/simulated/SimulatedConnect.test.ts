import { assert, describe, it } from "@effect/vitest"
import { SandboxConsent } from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { aConnector, callbackOf, failureOf, publicUrl, sandboxSecret, state, verifier } from "../connect/connectHarness.ts"

/** What the service's simulated consent page does on "Allow". */
const allow = (authorizeUrl: string, accounts: ReadonlyArray<SandboxConsent.SandboxAccount>, now: number) => {
  const params = SandboxConsent.readAuthorizeParams(new URL(authorizeUrl).searchParams)
  if (params._tag !== "Valid") throw new Error(`invalid sandbox authorize address: ${params.parameter}`)
  const code = SandboxConsent.issue({ secret: sandboxSecret, now, platform: params.platform, redirectUri: params.redirectUri, codeChallenge: params.codeChallenge, accounts, several: accounts.length > 1 })
  return new URL(SandboxConsent.callbackUrl(params, { code }))
}

const sandboxConnect = (platform: Platform, accounts: ReadonlyArray<SandboxConsent.SandboxAccount>) =>
  Effect.gen(function* () {
    const connector = yield* aConnector()
    const url = yield* connector.authorizationUrl({ platform, sandbox: true, state, redirectUri: callbackOf(platform), codeVerifier: verifier })
    const callback = allow(url, accounts, 0)
    assert.strictEqual(callback.searchParams.get("state"), state)
    const identities = yield* connector.exchange({
      platform,
      sandbox: true,
      code: callback.searchParams.get("code")!,
      redirectUri: callbackOf(platform),
      codeVerifier: verifier
    })
    return { connector, identities }
  })

describe("sandbox connect", () => {
  it.effect("needs no configuration and sends the person to Postwire's simulated consent page", () =>
    Effect.gen(function* () {
      const connector = yield* aConnector()
      for (const platform of ["shortvideo", "photo", "pages", "textpost"] as const) {
        assert.deepStrictEqual(connector.configured(platform, true), [])
      }
      const url = new URL(
        yield* connector.authorizationUrl({ platform: "photo", sandbox: true, state, redirectUri: callbackOf("photo"), codeVerifier: verifier })
      )
      assert.strictEqual(`${url.origin}${url.pathname}`, `${publicUrl}/connect/sandbox/authorize`)
      assert.strictEqual(url.searchParams.get("platform"), "photo")
      assert.strictEqual(url.searchParams.get("code_challenge"), SandboxConsent.codeChallenge(verifier))
    })
  )

  it.effect("connects a simulated TikTok creator with tokens that expire and refresh like TikTok's", () =>
    Effect.gen(function* () {
      const { connector, identities } = yield* sandboxConnect("shortvideo", [{ handle: "sandbox_creator", displayName: "Sandbox Creator" }])
      const [identity] = identities
      assert.strictEqual(identity!.platformAccountId, "sbx_shortvideo_sandbox_creator")
      assert.strictEqual(identity!.handle, "sandbox_creator")
      assert.strictEqual(identity!.displayName, "Sandbox Creator")
      assert.strictEqual(identity!.accessTokenExpiresAt, 24 * 60 * 60 * 1000)
      assert.isNotNull(identity!.refreshTokenExpiresAt)
      assert.include(identity!.creatorInfo?.privacyLevelOptions ?? [], "PUBLIC_TO_EVERYONE")
      yield* TestClock.adjust("23 hours")
      const refreshed = yield* connector.refresh({ platform: "shortvideo", sandbox: true, credentials: identity!.credentials })
      assert.strictEqual(refreshed._tag, "Refreshed")
      if (refreshed._tag !== "Refreshed") return
      assert.strictEqual(refreshed.accessTokenExpiresAt, (23 + 24) * 60 * 60 * 1000)
      assert.notStrictEqual(refreshed.credentials, identity!.credentials)
      const info = yield* connector.creatorInfo({ platform: "shortvideo", sandbox: true, credentials: refreshed.credentials })
      assert.strictEqual(info.username, "sandbox_creator")
      assert.deepStrictEqual(yield* connector.revoke({ platform: "shortvideo", sandbox: true, credentials: refreshed.credentials }), {
        _tag: "Revoked"
      })
    })
  )

  it.effect("a lapsed sandbox token needs a reconnect, as on the real platform", () =>
    Effect.gen(function* () {
      const { connector, identities } = yield* sandboxConnect("photo", [{ handle: "sandbox_shop" }])
      yield* TestClock.adjust("61 days")
      const failure = yield* failureOf(connector.refresh({ platform: "photo", sandbox: true, credentials: identities[0]!.credentials }))
      assert.strictEqual(failure.code, "token_expired")
      assert.isTrue(failure.needsReconnect)
    })
  )

  it.effect("connects several simulated Pages from one consent, with nothing to refresh", () =>
    Effect.gen(function* () {
      const { connector, identities } = yield* sandboxConnect("pages", [{ handle: "page.one" }, { handle: "page.two" }])
      assert.deepStrictEqual(identities.map((i) => i.platformAccountId), ["sbx_pages_page.one", "sbx_pages_page.two"])
      assert.strictEqual(identities[0]!.grantId, identities[1]!.grantId)
      assert.isNull(identities[0]!.accessTokenExpiresAt)
      assert.deepStrictEqual(yield* connector.refresh({ platform: "pages", sandbox: true, credentials: identities[0]!.credentials }), {
        _tag: "NothingToRefresh"
      })
    })
  )

  it.effect("refuses a code issued with another secret, for another callback, or with another verifier", () =>
    Effect.gen(function* () {
      const connector = yield* aConnector()
      const challenge = SandboxConsent.codeChallenge(verifier)
      const issue = (secret: string) =>
        SandboxConsent.issue({ secret, now: 0, platform: "textpost", redirectUri: callbackOf("textpost"), codeChallenge: challenge, accounts: [{ handle: "t" }] })
      const request = { platform: "textpost" as const, sandbox: true, redirectUri: callbackOf("textpost"), codeVerifier: verifier }
      const forged = yield* failureOf(connector.exchange({ ...request, code: issue("guess") }))
      assert.strictEqual(forged.code, "connect_failed")
      assert.strictEqual(forged.platformCode, "invalid_grant:bad_signature")
      const elsewhere = yield* failureOf(connector.exchange({ ...request, code: issue(sandboxSecret), redirectUri: callbackOf("photo") }))
      assert.strictEqual(elsewhere.platformCode, "invalid_grant:redirect_uri_mismatch")
      const stolen = yield* failureOf(connector.exchange({ ...request, code: issue(sandboxSecret), codeVerifier: "y".repeat(43) }))
      assert.strictEqual(stolen.platformCode, "invalid_grant:code_verifier_mismatch")
      yield* TestClock.adjust("11 minutes")
      const late = yield* failureOf(connector.exchange({ ...request, code: issue(sandboxSecret) }))
      assert.strictEqual(late.platformCode, "invalid_grant:expired")
    })
  )
})
