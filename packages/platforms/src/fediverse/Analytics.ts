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
import type { AnalyticsCapabilities } from "@postwire/core"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { byId, numbersOf, readInBatches, renamed } from "../internal/AnalyticsReading.ts"
import { stringField, type Wire } from "../internal/Wire.ts"
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

/** Creates the Mastodon analytics adapter. */
export const make = (wire: Wire): AnalyticsAdapter => ({
  collectPosts: (input) =>
    Effect.gen(function* () {
      const credentials = yield* FediverseCredentials.decode(input.account.credentials)
      const session = { server: credentials.server, token: credentials.access_token }
      let oneByOne = false
      return yield* readInBatches({
        targets: input.targets,
        batchSize,
        read: (wanted) =>
          Effect.gen(function* () {
            let calls = 0
            if (!oneByOne) {
              calls += 1
              const request = HttpClientRequest.get(`${session.server}/api/v1/statuses`).pipe(
                HttpClientRequest.setUrlParams(wanted.map((id) => ["id[]", id] as const))
              )
              const response = yield* Api.call(wire, session, request, (r) => Api.ok(r) || r.status === 404)
              if (response.status !== 404) return { items: byId(response.json, (status) => stringField(status, "id")), calls }
              oneByOne = true
            }
            const items = new Map<string, unknown>()
            for (const id of wanted) {
              calls += 1
              const response = yield* Api.call(wire, session, Api.get(session, `/api/v1/statuses/${encodeURIComponent(id)}`), (r) => Api.ok(r) || r.status === 404)
              if (response.status !== 404) items.set(id, response.json)
            }
            return { items, calls }
          }),
        reading: (status) => {
          const raw = numbersOf(status, ["favourites_count", "reblogs_count", "replies_count"])
          return { raw, metrics: renamed(raw, { likes: "favourites_count", reposts: "reblogs_count", comments: "replies_count" }) }
        }
      })
    }).pipe(Effect.withSpan("platforms.fediverse.analytics.posts")),

  collectAccount: (input) =>
    Effect.gen(function* () {
      const credentials = yield* FediverseCredentials.decode(input.account.credentials)
      const session = { server: credentials.server, token: credentials.access_token }
      const response = yield* Api.call(wire, session, Api.get(session, `/api/v1/accounts/${encodeURIComponent(credentials.account_id)}`))
      const currentRaw = numbersOf(response.json, ["followers_count", "following_count", "statuses_count"])
      return {
        current: renamed(currentRaw, { followers: "followers_count", following: "following_count", posts: "statuses_count" }),
        currentRaw,
        days: [],
        calls: 1
      }
    }).pipe(Effect.withSpan("platforms.fediverse.analytics.account"))
})
