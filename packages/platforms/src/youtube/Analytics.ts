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
import type { AnalyticsCapabilities, PlatformFailure, PostReading, RawMetrics } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { platformPostIdOf } from "../comments/CommentAdapter.ts"
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

/** Renames the counts present. */
const rename = <N extends string>(raw: Record<string, number>, names: Readonly<Record<N, string>>): { [K in N]?: number } => {
  const out: { [K in N]?: number } = {}
  for (const name in names) if (raw[names[name]] !== undefined) out[name] = raw[names[name]]
  return out
}

/** Creates the YouTube analytics adapter over the publishing settings. */
export const make = (settings: YouTube.Config, wire: Wire): AnalyticsAdapter => {
  const api = settings.apiUrl.replace(/\/+$/, "")
  const refresher = Google.refresh(wire, settings)
  const charge = YouTube.chargeFor(settings)

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
        const targetOf = new Map<string, Array<PostReading["targetId"]>>()
        for (const target of input.targets) {
          const id = platformPostIdOf(target)
          if (id !== null) targetOf.set(id, [...(targetOf.get(id) ?? []), target.id])
        }
        const ids = [...targetOf.keys()]
        const readings: Array<PostReading> = []
        const gone: Array<PostReading["targetId"]> = []
        let calls = 0
        for (let i = 0; i < ids.length; i += batchSize) {
          const wanted = ids.slice(i, i + batchSize)
          calls += 1
          const body = yield* list(session, "videos", { part: "statistics", id: wanted.join(","), maxResults: String(batchSize) })
          const items = field(body, "items")
          const found = new Set<string>()
          for (const item of Array.isArray(items) ? items : []) {
            const id = stringField(item, "id")
            if (id === undefined || !targetOf.has(id)) continue
            found.add(id)
            const raw: RawMetrics = counts(field(item, "statistics"), ["viewCount", "likeCount", "commentCount", "favoriteCount"])
            const metrics = rename(raw as Record<string, number>, { views: "viewCount", likes: "likeCount", comments: "commentCount" })
            for (const targetId of targetOf.get(id)!) readings.push({ targetId, metrics, raw })
          }
          for (const id of wanted) if (!found.has(id)) gone.push(...targetOf.get(id)!)
        }
        return { readings, gone, calls }
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
          current: rename(currentRaw, { followers: "subscriberCount", posts: "videoCount" }),
          currentRaw,
          days: [],
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.video.analytics.account"))

  return { collectPosts, collectAccount }
}
