/**
 * TikTok analytics through the Display API (Login Kit scopes):
 *
 * - Videos: `POST /v2/video/query/?fields=id,view_count,like_count,comment_count,share_count`
 *   with `{"filters": {"video_ids": [...]}}`, up to 20 ids a call, scope `video.list`
 *   (https://developers.tiktok.com/doc/tiktok-api-v2-video-query,
 *   https://developers.tiktok.com/doc/tiktok-api-v2-video-object). A video the query no longer
 *   returns (deleted, or made private by the creator) is `gone`.
 * - The account: `GET /v2/user/info/?fields=follower_count,following_count,likes_count,video_count`,
 *   scope `user.info.stats` (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info).
 *   TikTok gives no per-day figures: only the counts now.
 *
 * A token without the scope is refused (`scope_not_authorized`): `permission_missing`, asking for
 * a reconnect that grants it; when the stored scopes already show it missing, nothing is sent.
 * `rate_limit_exceeded` is retryable after TikTok's one-minute window.
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, PlatformFailure } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Credentials from "./Credentials.ts"
import { byId, numbersOf, readInBatches, renamed } from "../internal/AnalyticsReading.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { failure, field, retrying, type Wire } from "../internal/Wire.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as TikTok from "./TikTok.ts"

/** Videos one query takes. */
export const batchSize = 20

/** The video fields read. */
export const videoFields = "id,view_count,like_count,comment_count,share_count"

/** The account fields read. */
export const userFields = "follower_count,following_count,likes_count,video_count"

/** What TikTok provides, and where it says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["views", "likes", "comments", "shares"],
  account: ["followers", "following", "posts"],
  batchSize,
  sources: [
    "https://developers.tiktok.com/doc/tiktok-api-v2-video-query",
    "https://developers.tiktok.com/doc/tiktok-api-v2-video-object",
    "https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info",
    "https://developers.tiktok.com/doc/tiktok-api-scopes"
  ]
}

/** A video id: a string, or a number small enough to be exact. */
const idOf = (video: unknown): string | undefined => {
  const id = field(video, "id")
  if (typeof id === "string" && id !== "") return id
  return typeof id === "number" && Number.isSafeInteger(id) ? String(id) : undefined
}

/** Refuses, before any call, a token whose stored scopes lack `scope`. */
const needScope = (scopes: ReadonlyArray<string> | undefined, scope: string): Effect.Effect<void, PlatformFailure> =>
  scopes === undefined || scopes.includes(scope)
    ? Effect.void
    : Effect.fail(failure("permission_missing", `scope_not_authorized:${scope}`, { details: { platform: "shortvideo" } }))

/** Creates the TikTok analytics adapter over the publishing settings. */
export const make = (config: TikTok.Config, wire: Wire): AnalyticsAdapter => {
  const base = config.baseUrl.replace(/\/+$/, "")
  const openSession = TikTok.sessions(config, wire)

  const send = (request: HttpClientRequest.HttpClientRequest) => wire.send(request).pipe(Effect.flatMap(TikTok.interpret), retrying(wire.retry))

  const inSession = <A extends object>(
    account: Parameters<typeof openSession>[0],
    scope: string,
    step: (run: <B>(f: (token: string) => Effect.Effect<B, PlatformFailure>) => Effect.Effect<B, PlatformFailure>) => Effect.Effect<A, PlatformFailure>
  ) =>
    Effect.gen(function* () {
      const credentials = yield* Credentials.decode(account.credentials)
      yield* needScope(credentials.scopes, scope)
      const session = yield* openSession(account)
      return yield* TokenSession.withCredentials(
        session,
        step((f) => session.authed((c) => f(c.access_token)))
      )
    })

  const collectPosts: AnalyticsAdapter["collectPosts"] = (input) =>
    inSession(input.account, "video.list", (run) =>
      Effect.gen(function* () {
        return yield* readInBatches({
          targets: input.targets,
          batchSize,
          read: (wanted) =>
            Effect.map(
              run((token) =>
                send(
                  HttpClientRequest.post(`${base}/v2/video/query/`).pipe(
                    HttpClientRequest.setUrlParams({ fields: videoFields }),
                    HttpClientRequest.bearerToken(token),
                    HttpClientRequest.bodyJsonUnsafe({ filters: { video_ids: wanted } })
                  )
                )
              ),
              (data) => ({ items: byId(field(data, "videos"), idOf), calls: 1 })
            ),
          reading: (video) => {
            const raw = numbersOf(video, ["view_count", "like_count", "comment_count", "share_count"])
            return { raw, metrics: renamed(raw, { views: "view_count", likes: "like_count", comments: "comment_count", shares: "share_count" }) }
          }
        })
      })
    ).pipe(Effect.withSpan("platforms.shortvideo.analytics.posts"))

  const collectAccount: AnalyticsAdapter["collectAccount"] = (input) =>
    inSession(input.account, "user.info.stats", (run) =>
      Effect.gen(function* () {
        const data = yield* run((token) =>
          send(
            HttpClientRequest.get(`${base}/v2/user/info/`).pipe(
              HttpClientRequest.setUrlParams({ fields: userFields }),
              HttpClientRequest.bearerToken(token)
            )
          )
        )
        const currentRaw = numbersOf(field(data, "user"), ["follower_count", "following_count", "likes_count", "video_count"])
        return {
          current: renamed(currentRaw, { followers: "follower_count", following: "following_count", posts: "video_count" }),
          currentRaw,
          days: [],
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.shortvideo.analytics.account"))

  return { collectPosts, collectAccount }
}
