/**
 * A fake of the counts a PDS answers for its App View, as XRPC serves them
 * (https://atproto.com/specs/xrpc): `app.bsky.feed.getPosts` (`uris` repeated, at most 25, else
 * 400 `InvalidRequest`; post views with `likeCount`, `repostCount`, `replyCount`, `quoteCount`;
 * a deleted post left out, https://docs.bsky.app/docs/api/app-bsky-feed-get-posts),
 * `app.bsky.actor.getProfile` (`followersCount`, `followsCount`, `postsCount`,
 * https://docs.bsky.app/docs/api/app-bsky-actor-get-profile) and
 * `com.atproto.server.refreshSession` (rotating tokens). An expired access token answers 400
 * `ExpiredToken`, a revoked refresh token too; `rateLimited` answers 429 `RateLimitExceeded`
 * with `ratelimit-reset` (https://docs.bsky.app/docs/advanced-guides/rate-limits).
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeServer, start } from "../fakes/FakeServer.ts"

/** A post's counts. */
export interface PostCounts {
  likeCount: number
  repostCount: number
  replyCount: number
  quoteCount: number
}

export interface AppViewCountsFake extends FakeServer {
  readonly did: string
  accessToken: string
  refreshToken: string
  readonly posts: Map<string, PostCounts>
  profile: { followersCount: number; followsCount: number; postsCount: number }
  rateLimited: { remaining: number; resetAt: number }
  /** The account's credentials as Postwire keeps them, with `access` as the access token. */
  readonly credentials: (access?: string) => string
}

const error = (status: number, name: string, message: string, headers?: Record<string, string>): FakeReply => ({
  status,
  json: { error: name, message },
  ...(headers === undefined ? {} : { headers })
})

export const make = (): Effect.Effect<AppViewCountsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    let fake: AppViewCountsFake
    let rotation = 0
    const did = "did:plc:maya7bakes7fake7pds7aaaa"
    return Effect.map(
      start({
        route: (request) => request.path.replace(/^\/xrpc\//, ""),
        handle: (route, request) => {
          const token = (request.headers.authorization ?? "").replace(/^Bearer /, "")
          if (route === "com.atproto.server.refreshSession") {
            if (token !== fake.refreshToken) return error(400, "ExpiredToken", "Token has been revoked")
            rotation += 1
            fake.accessToken = `access-${rotation}`
            fake.refreshToken = `refresh-${rotation}`
            return { status: 200, json: { did, handle: "maya.bsky.social", accessJwt: fake.accessToken, refreshJwt: fake.refreshToken, active: true } }
          }
          if (token !== fake.accessToken) return error(400, "ExpiredToken", "Token has expired")
          if (fake.rateLimited.remaining > 0) {
            fake.rateLimited.remaining -= 1
            return error(429, "RateLimitExceeded", "Rate Limit Exceeded", {
              "ratelimit-limit": "3000",
              "ratelimit-remaining": "0",
              "ratelimit-reset": String(fake.rateLimited.resetAt),
              "ratelimit-policy": "3000;w=300"
            })
          }
          if (route === "app.bsky.feed.getPosts") {
            const uris = request.query.getAll("uris")
            if (uris.length > 25) return error(400, "InvalidRequest", "uris must not have more than 25 elements")
            const posts = uris
              .filter((uri) => fake.posts.has(uri))
              .map((uri) => ({
                uri,
                cid: "bafyreib2rxk3rybk3aobmv5cjuql3bm2twh4jo5uxgf5kpqcsgz7soitae",
                author: { did, handle: "maya.bsky.social" },
                record: { $type: "app.bsky.feed.post", text: "…", createdAt: "2026-12-05T10:00:00.000Z" },
                ...fake.posts.get(uri)!,
                indexedAt: "2026-12-05T10:00:01.000Z"
              }))
            return { status: 200, json: { posts } }
          }
          if (route === "app.bsky.actor.getProfile") {
            if (request.query.get("actor") !== did) return error(400, "InvalidRequest", "Profile not found")
            return { status: 200, json: { did, handle: "maya.bsky.social", displayName: "Maya", ...fake.profile } }
          }
          return error(501, "MethodNotImplemented", "Method Not Implemented")
        }
      }),
      (server) => {
        fake = Object.assign(server, {
          did,
          accessToken: "access-0",
          refreshToken: "refresh-0",
          posts: new Map<string, PostCounts>(),
          profile: { followersCount: 860, followsCount: 120, postsCount: 431 },
          rateLimited: { remaining: 0, resetAt: 0 },
          credentials: (access?: string) =>
            JSON.stringify({ did, handle: "maya.bsky.social", service: server.url, access_jwt: access ?? fake.accessToken, refresh_jwt: fake.refreshToken })
        })
        return fake
      }
    )
  })
