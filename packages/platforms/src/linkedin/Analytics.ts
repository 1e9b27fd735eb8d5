/**
 * LinkedIn analytics: what an app may read depends on its LinkedIn products.
 *
 * - Posts: `GET /rest/socialActions/{post urn}` (Social Actions API,
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/network-update-social-actions):
 *   `likesSummary.totalLikes` and `commentsSummary.aggregatedTotalComments`, one call a post.
 *   Reading them needs `r_member_social` (a member's posts; a restricted permission LinkedIn
 *   grants to few apps) or `r_organization_social` (a page's; Community Management API). An app
 *   without the permission of the author reads nothing: no call is made, and the account stays
 *   connected, as for comments.
 * - Impressions, reach, clicks and shares of a page's posts
 *   (`organizationalEntityShareStatistics`) and of a member's (`memberCreatorPostAnalytics`,
 *   `r_member_postAnalytics`) need Community Management API access: not read.
 * - The account: a page's followers from `GET /rest/networkSizes/{organization urn}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`
 *   (`firstDegreeSize`, https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-lookup-api),
 *   with `r_organization_social`. A member's follower count needs a permission basic apps lack:
 *   nothing is read.
 *
 * A permission LinkedIn refuses all the same is `permission_missing` without a reconnect (no
 * reconnect grants a product the app does not have).
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, PlatformFailure, PostReading, RawMetrics } from "@postwire/core"
import { Effect } from "effect"
import { platformPostIdOf } from "../comments/CommentAdapter.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, field, numberField, stringField, type Wire } from "../internal/Wire.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import * as LinkedIn from "./LinkedIn.ts"
import { readScope } from "./LinkedInComments.ts"
import * as Api from "./LinkedInApi.ts"
import * as Creds from "./LinkedInCredentials.ts"

/** What LinkedIn provides to an app with the read permissions, and where it says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["likes", "comments"],
  account: ["followers"],
  batchSize: 1,
  sources: [
    "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/network-update-social-actions",
    "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-lookup-api",
    "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/share-statistics"
  ]
}

/** Creates the LinkedIn analytics adapter over the publishing settings. */
export const make = (config: LinkedIn.Config, wire: Wire): AnalyticsAdapter => {
  const call = LinkedIn.caller(wire, config)
  const refresh = LinkedIn.refresher(config, wire)

  /** Runs `body` in the account's session when the app may read the author's data; `none` otherwise. */
  const withSession = <A extends object>(
    account: Parameters<typeof LinkedIn.openSession>[2],
    none: A,
    body: (session: LinkedIn.Session, author: string) => Effect.Effect<A, PlatformFailure>
  ) =>
    Effect.gen(function* () {
      const { author, session, expired } = yield* LinkedIn.openSession(config, refresh, account)
      const scopes = (yield* Creds.decode(account.credentials)).scopes
      if (scopes !== undefined && !scopes.includes(readScope(author))) return none
      return yield* TokenSession.withCredentials(
        session,
        Effect.gen(function* () {
          if (expired) yield* session.refreshNow
          return yield* body(session, author)
        })
      ).pipe(Effect.mapError((f) => (f.code === "permission_missing" ? amend(f, { needsReconnect: false }) : f)))
    })

  const collectPosts: AnalyticsAdapter["collectPosts"] = (input) =>
    withSession(input.account, { readings: [], gone: [], calls: 0 }, (session) =>
      Effect.gen(function* () {
        const readings: Array<PostReading> = []
        const gone: Array<PostReading["targetId"]> = []
        let calls = 0
        for (const target of input.targets) {
          const urn = platformPostIdOf(target) ?? stringField(target.platformState, "urn")
          if (urn === undefined || urn === null) continue
          calls += 1
          const response = yield* call(session, (token) => Api.rest(config, "GET", `socialActions/${Api.urnPath(urn)}`, token)).pipe(
            Effect.map((r) => r as { readonly status: number; readonly json: unknown } | undefined),
            Effect.catchIf(
              (f) => f.platformCode.includes("404") || f.platformCode.startsWith("NOT_FOUND"),
              () => Effect.succeed(undefined)
            )
          )
          if (response === undefined) {
            gone.push(target.id)
            continue
          }
          const likes = numberField(field(response.json, "likesSummary"), "totalLikes")
          const comments = numberField(field(response.json, "commentsSummary"), "aggregatedTotalComments")
          const raw: RawMetrics = {
            ...(likes === undefined ? {} : { totalLikes: likes }),
            ...(comments === undefined ? {} : { aggregatedTotalComments: comments })
          }
          readings.push({
            targetId: target.id,
            metrics: { ...(likes === undefined ? {} : { likes }), ...(comments === undefined ? {} : { comments }) },
            raw
          })
        }
        return { readings, gone, calls }
      })
    ).pipe(Effect.withSpan("platforms.professional.analytics.posts"))

  const collectAccount: AnalyticsAdapter["collectAccount"] = (input) =>
    withSession(input.account, { current: {}, currentRaw: {}, days: [], calls: 0 }, (session, author) =>
      Effect.gen(function* () {
        if (!author.startsWith("urn:li:organization:")) return { current: {}, currentRaw: {}, days: [], calls: 0 }
        const response = yield* call(session, (token) =>
          Api.rest(config, "GET", `networkSizes/${Api.urnPath(author)}`, token, { query: { edgeType: "COMPANY_FOLLOWED_BY_MEMBER" } })
        )
        const followers = numberField(response.json, "firstDegreeSize")
        return {
          current: followers === undefined ? {} : { followers },
          currentRaw: followers === undefined ? {} : { firstDegreeSize: followers },
          days: [],
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.professional.analytics.account"))

  return { collectPosts, collectAccount }
}
