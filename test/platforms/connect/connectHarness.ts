/**
 * Drives the connect journey against the fake authorization servers the way the service does:
 * authorization address → the fake's consent page answered → callback parameters → exchange.
 */
import { type AccountConnector, type ConnectFailure, SandboxConsent } from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { ConnectRouter } from "@postwire/platforms"
import { Effect, Result } from "effect"
import { FetchHttpClient } from "effect/http"
import type { ConsentAnswer, OAuthFake } from "../fakes/OAuthFake.ts"

export const publicUrl = "http://postwire.test"
export const sandboxSecret = "sandbox-secret-for-tests"
export const verifier = "verifier-0123456789-0123456789-0123456789-abcdef"
export const state = "st_2f1c9a"

/** Postwire's callback address of a platform. */
export const callbackOf = (platform: Platform) => `${publicUrl}/connect/callback/${platform}`

/** A connector with short retries, as tests want. */
export const aConnector = (options: Partial<ConnectRouter.Options> = {}) =>
  ConnectRouter.make({
    publicUrl,
    sandboxSecret,
    retry: { attempts: 2, baseDelayMs: 1 },
    requestTimeoutMs: 5_000,
    ...options
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Opens the authorization address and answers the consent page; the callback's query. */
export const consent = (
  connector: AccountConnector["Service"],
  fake: OAuthFake,
  platform: Platform,
  answer: ConsentAnswer = {}
): Effect.Effect<URLSearchParams, ConnectFailure> =>
  Effect.gen(function* () {
    const redirectUri = callbackOf(platform)
    if (!fake.redirectUris.includes(redirectUri)) fake.redirectUris.push(redirectUri)
    const url = yield* connector.authorizationUrl({ platform, sandbox: false, state, redirectUri, codeVerifier: verifier })
    const location = yield* Effect.promise(() => fake.approve(url, answer))
    const callback = new URL(location)
    assertCallback(callback, redirectUri)
    return callback.searchParams
  })

const assertCallback = (callback: URL, redirectUri: string) => {
  const base = `${callback.origin}${callback.pathname}`
  if (base !== redirectUri) throw new Error(`redirected to ${callback.toString()}, not the callback ${redirectUri}`)
}

/** The whole journey: consent allowed, code exchanged. */
export const connect = (
  connector: AccountConnector["Service"],
  fake: OAuthFake,
  platform: Platform,
  answer: ConsentAnswer = {}
) =>
  Effect.gen(function* () {
    const query = yield* consent(connector, fake, platform, answer)
    const code = query.get("code")
    if (code === null) throw new Error(`no code in the callback: ${query.toString()}`)
    return yield* connector.exchange({ platform, sandbox: false, code, redirectUri: callbackOf(platform), codeVerifier: verifier })
  })

/** The failure of an effect that must fail. */
export const failureOf = <A>(effect: Effect.Effect<A, ConnectFailure>) =>
  Effect.map(Effect.result(effect), (result) => {
    if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
    return result.failure
  })

/** The hex PKCE challenge of the tests' verifier. */
export const challenge = SandboxConsent.codeChallenge(verifier)
