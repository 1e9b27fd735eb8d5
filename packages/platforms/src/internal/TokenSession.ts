/**
 * The credentials of one account during one step: calls run with the current token; a call that
 * fails with an expired token refreshes it once and runs again; a second expiry, or a failed
 * refresh, ends in `token_expired` with `needsReconnect` (unless the refresh said the app, not the
 * account, is at fault: `needsReconnect: false`). Refreshed credentials leave the step
 * on its result or on its failure, so rotated refresh tokens are never lost.
 *
 * @internal
 */
import type { CredentialsUpdate, PlatformFailure } from "@postwire/core"
import { Effect, Ref, Semaphore } from "effect"
import { amend, failure } from "./Wire.ts"

/** Turns credentials into fresh ones, or fails (`token_expired` when the grant is gone). */
export type Refresh<C> = (credentials: C) => Effect.Effect<C, PlatformFailure>

/** The credentials of one account for the length of one step. */
export interface TokenSession<C> {
  /** Runs a call with the current credentials, refreshing them once if the token expired. */
  readonly authed: <A>(call: (credentials: C) => Effect.Effect<A, PlatformFailure>) => Effect.Effect<A, PlatformFailure>
  /** Refreshes now, before any call (a token known to be expired). */
  readonly refreshNow: Effect.Effect<void, PlatformFailure>
  /** The new credentials to store, when they changed during the step. */
  readonly update: Effect.Effect<CredentialsUpdate | undefined>
}

/** The refreshes in flight and just done, of every refresher that shares one name. */
interface Flight {
  readonly lock: Semaphore.Semaphore
  readonly done: Map<string, unknown>
}

const flights = new Map<string, Flight>()

const flightOf = (name: string | undefined): Flight => {
  if (name === undefined) return { lock: Semaphore.makeUnsafe(1), done: new Map() }
  let flight = flights.get(name)
  if (flight === undefined) {
    flight = { lock: Semaphore.makeUnsafe(1), done: new Map() }
    flights.set(name, flight)
  }
  return flight
}

/**
 * Deduplicates refreshes of the same credentials: two targets of one account whose token expired
 * together refresh once, and the second reuses the rotated result instead of spending a refresh
 * token that is no longer valid. Refreshers made with the same `shared` name (one platform app:
 * its API address and client key) share one flight in the process: TikTok's publishing and its
 * analytics, built apart from the same settings, never spend one rotating refresh token twice.
 */
export const makeRefresher = <C, E = PlatformFailure>(
  refresh: (credentials: C) => Effect.Effect<C, E>,
  encode: (credentials: C) => string,
  shared?: string
): ((credentials: C) => Effect.Effect<C, E>) => {
  const flight = flightOf(shared)
  const done = flight.done as Map<string, C>
  const lock = flight.lock
  return (credentials) =>
    lock.withPermits(1)(
      Effect.suspend(() => {
        const key = encode(credentials)
        const known = done.get(key)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.tap(refresh(credentials), (fresh) =>
          Effect.sync(() => {
            if (done.size >= 1000) done.delete(done.keys().next().value as string)
            done.set(key, fresh)
          })
        )
      })
    )
}

/** Opens a session for one account's step. `refresh` is `null` where the platform has no refresh grant. */
export const make = <C>(options: {
  readonly accountId: string
  readonly credentials: C
  readonly refresh: Refresh<C> | null
  readonly encode: (credentials: C) => string
}): Effect.Effect<TokenSession<C>> =>
  Effect.gen(function* () {
    const current = yield* Ref.make(options.credentials)
    const refreshed = yield* Ref.make(false)

    const reconnect = (f: PlatformFailure) =>
      f.code === "token_expired" ? amend(f, { needsReconnect: true }) : f

    const refreshOnce: Effect.Effect<void, PlatformFailure> = Effect.gen(function* () {
      if (options.refresh === null || (yield* Ref.get(refreshed))) {
        return yield* Effect.fail(failure("token_expired", "no_refresh", { needsReconnect: true }))
      }
      yield* Ref.set(refreshed, true)
      const fresh = yield* options.refresh(yield* Ref.get(current)).pipe(
        // A refresh refused for the app's own credentials (`needsReconnect: false`, e.g. TikTok
        // `invalid_client`) is the operator's to fix: no reconnect of the account would help.
        Effect.mapError((f) => (f.code === "platform_unavailable" || f.needsReconnect === false ? f : amend(f, { needsReconnect: true })))
      )
      yield* Ref.set(current, fresh)
    })

    const authed = <A>(call: (credentials: C) => Effect.Effect<A, PlatformFailure>) =>
      Effect.flatMap(Ref.get(current), call).pipe(
        Effect.catchIf(
          (f) => f.code === "token_expired" && f.needsReconnect !== true,
          (expired) =>
            Effect.gen(function* () {
              if (yield* Ref.get(refreshed)) return yield* Effect.fail(reconnect(expired))
              yield* refreshOnce.pipe(
                Effect.mapError((f) => (f.platformCode === "no_refresh" ? reconnect(expired) : f))
              )
              return yield* Effect.flatMap(Ref.get(current), call).pipe(Effect.mapError(reconnect))
            })
        )
      )

    const update = Effect.gen(function* () {
      if (!(yield* Ref.get(refreshed))) return undefined
      const credentials = yield* Ref.get(current)
      if (credentials === options.credentials) return undefined
      return { accountId: options.accountId, credentials: options.encode(credentials) }
    })

    return { authed, refreshNow: refreshOnce, update }
  })

/**
 * Runs a step inside a session and attaches the refreshed credentials to whatever comes out.
 */
export const withCredentials = <C, A extends object>(
  session: TokenSession<C>,
  step: Effect.Effect<A, PlatformFailure>
): Effect.Effect<A & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure> =>
  Effect.matchEffect(step, {
    onSuccess: (value) =>
      Effect.map(session.update, (credentials) => (credentials === undefined ? value : { ...value, credentials })),
    onFailure: (f) =>
      Effect.flatMap(session.update, (credentials) =>
        Effect.fail(credentials === undefined ? f : amend(f, { credentials }))
      )
  })
