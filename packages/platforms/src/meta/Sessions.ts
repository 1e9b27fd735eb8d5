/**
 * Opening an account's token session on a Meta Graph host, shared by publishing and comments:
 * Instagram and Threads long-lived tokens (renewed with their refresh grant while still valid),
 * and Facebook Page tokens (derived again from the user token when invalidated).
 *
 * @internal
 */
import type { AccountRecord, PlatformFailure } from "@postwire/core"
import { Clock, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import * as PagesCredentials from "../facebook/Credentials.ts"
import * as Credentials from "./Credentials.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { failure, numberField, retrying, stringField, type Wire } from "../internal/Wire.ts"
import type { GraphApi } from "./GraphApi.ts"

/** Instagram and Threads credentials: the same long-lived token shape. */
export type LongLived = Credentials.LongLivedToken

/** Opens the token session of an Instagram or Threads account. */
export type OpenLongLived = (account: AccountRecord) => Effect.Effect<TokenSession.TokenSession<LongLived>, PlatformFailure>

/** Sessions over a long-lived Instagram or Threads token. */
export const longLived = (options: {
  readonly graph: GraphApi
  readonly wire: Wire
  /** Where to refresh (`GET ?grant_type=...&access_token=...`); `null`: no refresh. */
  readonly refreshUrl: string | null
  /** A token expiring sooner than this is renewed first. */
  readonly refreshWithinMs: number
  /** `ig_refresh_token`, `th_refresh_token`. */
  readonly refreshGrantType: string
}): OpenLongLived => {
  const { graph, refreshUrl, wire } = options
  const refresh: TokenSession.Refresh<LongLived> | null =
    refreshUrl === null
      ? null
      : TokenSession.makeRefresher(
          (credentials) =>
            Effect.gen(function* () {
              const request = HttpClientRequest.get(refreshUrl).pipe(
                HttpClientRequest.setUrlParams({
                  grant_type: options.refreshGrantType,
                  access_token: credentials.access_token
                })
              )
              const body = yield* wire.send(request).pipe(Effect.flatMap(graph.interpret), retrying(wire.retry))
              const accessToken = stringField(body, "access_token")
              if (accessToken === undefined) {
                return yield* Effect.fail(failure("token_expired", "refresh_malformed", { needsReconnect: true }))
              }
              const now = yield* Clock.currentTimeMillis
              const expiresIn = numberField(body, "expires_in")
              // Keep what the account's credentials carry besides the token (user id, scopes).
              const { expires_at: _old, ...kept } = credentials
              return {
                ...kept,
                access_token: accessToken,
                issued_at: now,
                ...(expiresIn === undefined ? {} : { expires_at: now + expiresIn * 1000 })
              }
            }),
          (credentials) => credentials.access_token
        )

  return (account) =>
    Effect.gen(function* () {
      const credentials = yield* Credentials.decode(account.credentials)
      const session = yield* TokenSession.make({
        accountId: account.id,
        credentials,
        refresh,
        encode: (c) => Credentials.encode(c)
      })
      // Meta refreshes only a token that is still valid: renew it while it is, before it lapses.
      const now = yield* Clock.currentTimeMillis
      const expiresAt = credentials.expires_at
      if (refresh !== null && expiresAt !== undefined && expiresAt - now < options.refreshWithinMs) {
        yield* expiresAt <= now
          ? session.refreshNow
          : // Still valid: a failed renewal must not stop the step.
            Effect.ignore(session.refreshNow)
      }
      return session
    })
}

/** Opens the token session of a Facebook Page. */
export type OpenPage = (
  account: AccountRecord,
  pageId: string
) => Effect.Effect<TokenSession.TokenSession<PagesCredentials.PagesCredentials>, PlatformFailure>

/**
 * Sessions over a Page token. Page tokens do not expire on their own; when one is invalidated and
 * the credentials hold the user token it came from, a new Page token is derived from it once.
 */
export const page = (graph: GraphApi): OpenPage => {
  const refreshFor = (pageId: string) =>
    TokenSession.makeRefresher<PagesCredentials.PagesCredentials>(
      (credentials) =>
        credentials.user_access_token === undefined
          ? Effect.fail(failure("token_expired", "no_refresh", { needsReconnect: true }))
          : graph.get(pageId, { fields: "access_token" }, credentials.user_access_token).pipe(
              Effect.flatMap((body) => {
                const token = stringField(body, "access_token")
                return token === undefined
                  ? Effect.fail(failure("permission_missing", "page_token_missing", { needsReconnect: true }))
                  : Effect.succeed({ ...credentials, page_access_token: token })
              })
            ),
      (credentials) => credentials.page_access_token
    )
  const refreshers = new Map<string, TokenSession.Refresh<PagesCredentials.PagesCredentials>>()

  return (account, pageId) =>
    Effect.gen(function* () {
      const credentials = yield* PagesCredentials.decode(account.credentials)
      let refresh = refreshers.get(pageId)
      if (refresh === undefined) {
        refresh = refreshFor(pageId)
        refreshers.set(pageId, refresh)
      }
      return yield* TokenSession.make({
        accountId: account.id,
        credentials,
        refresh,
        encode: (c) => PagesCredentials.encode(c)
      })
    })
}
