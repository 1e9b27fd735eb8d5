/**
 * Mastodon analytics: the public counts a server keeps for its statuses and accounts. Mastodon
 * has no views, reach nor per-day figures.
 *
 * - Statuses: `GET /api/v1/statuses?id[]=…` (Mastodon 4.3 and later, up to 20 ids a call; a
 *   status that no longer exists or cannot be seen is left out,
 *   https://docs.joinmastodon.org/methods/statuses/#index): `favourites_count`, `reblogs_count`,
 *   `replies_count` (https://docs.joinmastodon.org/entities/Status/). A server without that method
 *   (404) is read one status at a time (`GET /api/v1/statuses/:id`, a 404 there: `gone`).
 * - The account: `GET /api/v1/accounts/:id`: `followers_count`, `following_count`,
 *   `statuses_count` (https://docs.joinmastodon.org/entities/Account/).
 *
 * Scope `read:statuses` and `read:accounts` (the `read` the connect asks for covers them).
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, PostReading, RawMetrics } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { platformPostIdOf } from "../comments/CommentAdapter.ts"
import { field, stringField, type Wire } from "../internal/Wire.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as Api from "./Api.ts"
import * as FediverseCredentials from "./FediverseCredentials.ts"

/** Statuses one call takes. */
export const batchSize = 20

/** What Mastodon provides, and where it says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["likes", "reposts", "comments"],
  account: ["followers", "following", "posts"],
  batchSize,
  sources: [
    "https://docs.joinmastodon.org/methods/statuses/#index",
    "https://docs.joinmastodon.org/entities/Status/",
    "https://docs.joinmastodon.org/methods/accounts/#get",
    "https://docs.joinmastodon.org/entities/Account/"
  ]
}

/** The numbers among `names` of an entity. */
const numbers = (entity: unknown, names: ReadonlyArray<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const name of names) {
    const value = field(entity, name)
    if (typeof value === "number") out[name] = value
  }
  return out
}

/** One status's reading. */
const reading = (targetId: PostReading["targetId"], status: unknown): PostReading => {
  const raw: RawMetrics = numbers(status, ["favourites_count", "reblogs_count", "replies_count"])
  return {
    targetId,
    metrics: {
      ...(raw.favourites_count === undefined ? {} : { likes: raw.favourites_count as number }),
      ...(raw.reblogs_count === undefined ? {} : { reposts: raw.reblogs_count as number }),
      ...(raw.replies_count === undefined ? {} : { comments: raw.replies_count as number })
    },
    raw
  }
}

/** Creates the Mastodon analytics adapter. */
export const make = (wire: Wire): AnalyticsAdapter => ({
  collectPosts: (input) =>
    Effect.gen(function* () {
      const credentials = yield* FediverseCredentials.decode(input.account.credentials)
      const session = { server: credentials.server, token: credentials.access_token }
      const targetOf = new Map<string, Array<PostReading["targetId"]>>()
      for (const target of input.targets) {
        const id = platformPostIdOf(target)
        if (id !== null) targetOf.set(id, [...(targetOf.get(id) ?? []), target.id])
      }
      const ids = [...targetOf.keys()]
      const readings: Array<PostReading> = []
      const gone: Array<PostReading["targetId"]> = []
      let calls = 0
      let oneByOne = false
      for (let i = 0; i < ids.length; i += batchSize) {
        const wanted = ids.slice(i, i + batchSize)
        const found = new Map<string, unknown>()
        if (!oneByOne) {
          calls += 1
          const request = HttpClientRequest.get(`${session.server}/api/v1/statuses`).pipe(HttpClientRequest.setUrlParams(wanted.map((id) => ["id[]", id] as const)))
          const response = yield* Api.call(wire, session, request, (r) => Api.ok(r) || r.status === 404)
          if (response.status === 404) oneByOne = true
          else if (Array.isArray(response.json)) for (const status of response.json) found.set(stringField(status, "id") ?? "", status)
        }
        if (oneByOne) {
          for (const id of wanted) {
            calls += 1
            const response = yield* Api.call(wire, session, Api.get(session, `/api/v1/statuses/${encodeURIComponent(id)}`), (r) => Api.ok(r) || r.status === 404)
            if (response.status !== 404) found.set(id, response.json)
          }
        }
        for (const id of wanted) {
          const status = found.get(id)
          if (status === undefined) gone.push(...targetOf.get(id)!)
          else for (const targetId of targetOf.get(id)!) readings.push(reading(targetId, status))
        }
      }
      return { readings, gone, calls }
    }).pipe(Effect.withSpan("platforms.fediverse.analytics.posts")),

  collectAccount: (input) =>
    Effect.gen(function* () {
      const credentials = yield* FediverseCredentials.decode(input.account.credentials)
      const session = { server: credentials.server, token: credentials.access_token }
      const response = yield* Api.call(wire, session, Api.get(session, `/api/v1/accounts/${encodeURIComponent(credentials.account_id)}`))
      const currentRaw = numbers(response.json, ["followers_count", "following_count", "statuses_count"])
      return {
        current: {
          ...(currentRaw.followers_count === undefined ? {} : { followers: currentRaw.followers_count }),
          ...(currentRaw.following_count === undefined ? {} : { following: currentRaw.following_count }),
          ...(currentRaw.statuses_count === undefined ? {} : { posts: currentRaw.statuses_count })
        },
        currentRaw,
        days: [],
        calls: 1
      }
    }).pipe(Effect.withSpan("platforms.fediverse.analytics.account"))
})
