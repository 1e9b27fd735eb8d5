/**
 * The handlers of analytics: `GET /v1/posts/{id}/metrics`, `GET /v1/accounts/{id}/metrics`,
 * `GET /v1/analytics` and `GET /v1/analytics/chart.svg`; and the `metrics` block that
 * `GET /v1/posts/{id}` adds to each target.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AnalyticsQueries, type Caller } from "@postwire/core"
import { Api, CurrentKey, Ids, type Post } from "@postwire/domain"
import { analyticsChart } from "./AnalyticsChart.ts"
import { respond } from "./Failures.ts"

const caller: Effect.Effect<Caller, never, CurrentKey> = Effect.gen(function* () {
  const key = yield* CurrentKey
  return { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind }
})

/** The post with each target's latest metrics (`metrics`, `null` before the first reading). */
export const withMetrics = Effect.fn("analytics.withMetrics")(function* (post: Post.Post) {
  const who = yield* caller
  const latest = yield* respond(
    AnalyticsQueries.latestMetrics(
      who.workspaceId,
      post.targets.map((t) => Ids.unchecked("target", t.id))
    )
  )
  return { ...post, targets: post.targets.map((t) => ({ ...t, metrics: latest.get(t.id) ?? null })) } satisfies Post.Post
})

/** /v1/…/metrics and /v1/analytics… */
export const AnalyticsHandlers = HttpApiBuilder.group(Api, "analytics", (handlers) =>
  handlers
    .handle("postMetrics", ({ params, query }) =>
      Effect.gen(function* () {
        return yield* respond(AnalyticsQueries.postMetrics(yield* caller, Ids.unchecked("post", params.id), query.series === "true"))
      })
    )
    .handle("accountMetrics", ({ params, query }) =>
      Effect.gen(function* () {
        return yield* respond(AnalyticsQueries.accountMetrics(yield* caller, Ids.unchecked("account", params.id), query))
      })
    )
    .handle("overview", ({ query }) =>
      Effect.gen(function* () {
        return yield* respond(AnalyticsQueries.overview(yield* caller, query))
      })
    )
    .handle("chart", ({ query }) => respond(analyticsChart(query)))
)
