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
import type { AnalyticsCapabilities, PlatformFailure, PostReading, RawMetrics } from "@postwire/core"
import { Clock, Effect } from "effect"
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

/** The numbers among `names` of a view. */
const numbers = (view: unknown, names: ReadonlyArray<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const name of names) {
    const value = field(view, name)
    if (typeof value === "number") out[name] = value
  }
  return out
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
        const targetOf = new Map<string, Array<PostReading["targetId"]>>()
        for (const target of input.targets) {
          const uri = postUri(target, session.current().did)
          if (uri !== null) targetOf.set(uri, [...(targetOf.get(uri) ?? []), target.id])
        }
        const uris = [...targetOf.keys()]
        const readings: Array<PostReading> = []
        const gone: Array<PostReading["targetId"]> = []
        let calls = 0
        for (let i = 0; i < uris.length; i += batchSize) {
          const wanted = uris.slice(i, i + batchSize)
          calls += 1
          const body = yield* Effect.flatMap(session.call({ _tag: "query", nsid: "app.bsky.feed.getPosts", params: { uris: wanted } }), answer)
          const posts = field(body, "posts")
          const found = new Set<string>()
          for (const post of Array.isArray(posts) ? posts : []) {
            const uri = stringField(post, "uri")
            if (uri === undefined || !targetOf.has(uri)) continue
            found.add(uri)
            const raw: RawMetrics = numbers(post, ["likeCount", "repostCount", "replyCount", "quoteCount"])
            const metrics = {
              ...(raw.likeCount === undefined ? {} : { likes: raw.likeCount as number }),
              ...(raw.repostCount === undefined ? {} : { reposts: raw.repostCount as number }),
              ...(raw.replyCount === undefined ? {} : { comments: raw.replyCount as number }),
              ...(raw.quoteCount === undefined ? {} : { quotes: raw.quoteCount as number })
            }
            for (const targetId of targetOf.get(uri)!) readings.push({ targetId, metrics, raw })
          }
          for (const uri of wanted) if (!found.has(uri)) gone.push(...targetOf.get(uri)!)
        }
        return { readings, gone, calls }
      })
    ).pipe(Effect.withSpan("platforms.atproto.analytics.posts")),

  collectAccount: (input) =>
    inSession(wire, input.account, (session, answer) =>
      Effect.gen(function* () {
        const body = yield* Effect.flatMap(
          session.call({ _tag: "query", nsid: "app.bsky.actor.getProfile", params: { actor: session.current().did } }),
          answer
        )
        const currentRaw = numbers(body, ["followersCount", "followsCount", "postsCount"])
        return {
          current: {
            ...(currentRaw.followersCount === undefined ? {} : { followers: currentRaw.followersCount }),
            ...(currentRaw.followsCount === undefined ? {} : { following: currentRaw.followsCount }),
            ...(currentRaw.postsCount === undefined ? {} : { posts: currentRaw.postsCount })
          },
          currentRaw,
          days: [],
          calls: 1
        }
      })
    ).pipe(Effect.withSpan("platforms.atproto.analytics.account"))
})
