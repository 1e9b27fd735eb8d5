/**
 * YouTube analytics through the YouTube Data API v3, with the connect's scopes:
 *
 * - Videos: `GET /videos?part=statistics&id=a,b,…` (up to 50 ids, 1 quota unit a call,
 *   https://developers.google.com/youtube/v3/docs/videos/list): `statistics.viewCount`,
 *   `likeCount`, `commentCount` (decimal strings on the wire; a count the owner hid is left out,
 *   https://developers.google.com/youtube/v3/docs/videos#statistics). A video the answer leaves
 *   out (deleted) is `gone`.
 * - The channel: `GET /channels?part=statistics&mine=true` (1 unit): `subscriberCount` (left out
 *   while `hiddenSubscriberCount` is true), `videoCount`, and the lifetime `viewCount` (in `raw`)
 *   (https://developers.google.com/youtube/v3/docs/channels#statistics).
 *
 * Watch time and daily figures come from the separate YouTube Analytics API, which needs the
 * `yt-analytics.readonly` scope the connect does not ask for: not read.
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, Counters, PlatformFailure } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { byId, readInBatches, renamed } from "../internal/AnalyticsReading.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { field, stringField, type Wire } from "../internal/Wire.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as Google from "./GoogleApi.ts"
import * as YouTube from "./YouTube.ts"

/** Videos one `videos.list` call takes. */
export const batchSize = 50

/** What YouTube provides, and where Google says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["views", "likes", "comments"],
  account: ["followers", "posts"],
  batchSize,
  sources: [
    "https://developers.google.com/youtube/v3/docs/videos/list",
    "https://developers.google.com/youtube/v3/docs/videos#statistics",
    "https://developers.google.com/youtube/v3/docs/channels#statistics",
    "https://developers.google.com/youtube/v3/determine_quota_cost"
  ]
}

/** The counts among `names` of a `statistics` object (decimal strings), as numbers. */
const counts = (statistics: unknown, names: ReadonlyArray<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const name of names) {
    const value = field(statistics, name)
    const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : typeof value === "number" ? value : undefined
    if (n !== undefined) out[name] = n
  }
  return out
}

/** Creates the YouTube analytics adapter over the publishing settings. */
export const make = (settings: YouTube.Config, wire: Wire, counters: Counters): AnalyticsAdapter => {
  const api = settings.apiUrl.replace(/\/+$/, "")
  const refresher = Google.refresh(wire, settings)
  const charge = YouTube.chargeFor(settings, counters)

  const inSession = <A extends object>(account: { readonly id: string; readonly credentials: string | null }, step: (session: Google.Session) => Effect.Effect<A, PlatformFailure>) =>
    Effect.flatMap(Google.openSession(refresher, account), (session) => TokenSession.withCredentials(session, step(session)))

  const list = (session: Google.Session, path: string, params: Readonly<Record<string, string>>) =>
    Effect.gen(function* () {
      const response = yield* Google.authed(wire, session, HttpClientRequest.get(`${api}/${path}`).pipe(HttpClientRequest.setUrlParams(params)))
      yield* charge(settings.unitCosts.list)
      if (!Google.ok(response)) return yield* Effect.fail(Google.refusal(response))
      return response.json
    })

  const collectPosts: AnalyticsAdapter["collectPosts"] = (input) =>
    inSession(input.account, (session) =>
      Effect.gen(function* () {
        return yield* readInBatches({
          targets: input.targets,
          batchSize,
          read: (wanted) =>
            Effect.map(list(session, "videos", { part: "statistics", id: wanted.join(","), maxResults: String(batchSize) }), (body) => ({
              items: byId(field(body, "items"), (item) => stringField(item, "id")),
              calls: 1
            })),
          reading: (item) => {
            const raw = counts(field(item, "statistics"), ["viewCount", "likeCount", "commentCount", "favoriteCount"])
            return { raw, metrics: renamed(raw, { views: "viewCount", likes: "likeCount", comments: "commentCount" }) }
          }
        })
      })
    ).pipe(Effect.withSpan("platforms.video.analytics.posts"))

  const collectAccount: AnalyticsAdapter["collectAccount"] = (input) =>
    inSession(input.account, (session) =>
      Effect.gen(function* () {
        const body = yield* list(session, "channels", { part: "statistics", mine: "true" })
        const items = field(body, "items")
        const statistics = field(Array.isArray(items) ? items[0] : undefined, "statistics")
        const currentRaw = counts(statistics, ["subscriberCount", "videoCount", "viewCount"])
        return {
          // `viewCount` is the channel's lifetime total, not a day's: kept in `raw` only.
          current: renamed(currentRaw, { followers: "subscriberCount", posts: "videoCount" }),
          currentRaw,
          days: [],
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.video.analytics.account"))

  return { collectPosts, collectAccount }
}
