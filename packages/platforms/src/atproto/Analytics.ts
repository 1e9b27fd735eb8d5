/**
 * Bluesky analytics: the public counts the App View keeps (the PDS proxies `app.bsky.*` queries
 * to it). Bluesky has no views, reach nor per-day figures.
 *
 * - Posts: `app.bsky.feed.getPosts?uris=…` (up to 25 `at://` URIs a call): each post view's
 *   `likeCount`, `repostCount`, `replyCount`, `quoteCount`
 *   (https://docs.bsky.app/docs/api/app-bsky-feed-get-posts). A post the answer leaves out
 *   (deleted) is `gone`.
 * - The account: `app.bsky.actor.getProfile?actor={did}`: `followersCount`, `followsCount`,
 *   `postsCount` (https://docs.bsky.app/docs/api/app-bsky-actor-get-profile).
 *
 * An expired session is refreshed once (the rotated tokens come back to be stored); a refused one
 * asks for a reconnect; 429 `RateLimitExceeded` is retryable at `ratelimit-reset`.
 *
 * @since 0.5.0
 */
import type { AnalyticsCapabilities, PlatformFailure } from "@postwire/core"
import { Clock, Effect } from "effect"
import { byId, numbersOf, readInBatches, renamed } from "../internal/AnalyticsReading.ts"
import { amend, field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import type { AnalyticsAdapter } from "../Plugin.ts"
import { postUri } from "./AtprotoComments.ts"
import * as Xrpc from "./Xrpc.ts"

/** Posts one `getPosts` call takes. */
export const batchSize = 25

/** What Bluesky provides, and where it says so. */
export const capabilities: AnalyticsCapabilities = {
  post: ["likes", "reposts", "comments", "quotes"],
  account: ["followers", "following", "posts"],
  batchSize,
  sources: ["https://docs.bsky.app/docs/api/app-bsky-feed-get-posts", "https://docs.bsky.app/docs/api/app-bsky-actor-get-profile"]
}

/** Runs `step` in the account's session; refreshed credentials leave with the result or the failure. */
const inSession = <A extends object>(
  wire: Wire,
  account: { readonly id: string; readonly credentials: string | null },
  step: (session: Xrpc.Session, answer: (response: WireResponse) => Effect.Effect<unknown, PlatformFailure>) => Effect.Effect<A, PlatformFailure>
) =>
  Effect.flatMap(Xrpc.session(wire, account.id, account.credentials), (session) => {
    const answer = (response: WireResponse) =>
      Xrpc.ok(response) ? Effect.succeed(response.json) : Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(Xrpc.toFailure(response, now)))
    return step(session, answer).pipe(
      Effect.map((value) => {
        const credentials = session.update()
        return credentials === undefined ? value : { ...value, credentials }
      }),
      Effect.mapError((f) => {
        const credentials = session.update()
        return credentials === undefined ? f : amend(f, { credentials })
      })
    )
  })

/** Creates the Bluesky analytics adapter. */
export const make = (wire: Wire): AnalyticsAdapter => ({
  collectPosts: (input) =>
    inSession(wire, input.account, (session, answer) =>
      Effect.gen(function* () {
        return yield* readInBatches({
          targets: input.targets,
          batchSize,
          idOf: (target) => postUri(target, session.current().did),
          read: (wanted) =>
            Effect.map(
              Effect.flatMap(session.call({ _tag: "query", nsid: "app.bsky.feed.getPosts", params: { uris: wanted } }), answer),
              (body) => ({ items: byId(field(body, "posts"), (post) => stringField(post, "uri")), calls: 1 })
            ),
          reading: (post) => {
            const raw = numbersOf(post, ["likeCount", "repostCount", "replyCount", "quoteCount"])
            return { raw, metrics: renamed(raw, { likes: "likeCount", reposts: "repostCount", comments: "replyCount", quotes: "quoteCount" }) }
          }
        })
      })
    ).pipe(Effect.withSpan("platforms.atproto.analytics.posts")),

  collectAccount: (input) =>
    inSession(wire, input.account, (session, answer) =>
      Effect.gen(function* () {
        const body = yield* Effect.flatMap(
          session.call({ _tag: "query", nsid: "app.bsky.actor.getProfile", params: { actor: session.current().did } }),
          answer
        )
        const currentRaw = numbersOf(body, ["followersCount", "followsCount", "postsCount"])
        return {
          current: renamed(currentRaw, { followers: "followersCount", following: "followsCount", posts: "postsCount" }),
          currentRaw,
          days: [],
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.atproto.analytics.account"))
})
