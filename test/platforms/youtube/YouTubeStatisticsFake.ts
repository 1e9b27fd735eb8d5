/**
 * A fake of the YouTube Data API reads analytics makes: `GET /youtube/v3/videos?part=statistics&id=…`
 * (at most 50 ids; statistics as decimal strings; a deleted video left out of `items`,
 * https://developers.google.com/youtube/v3/docs/videos/list), `GET /youtube/v3/channels?part=statistics&mine=true`
 * (`hiddenSubscriberCount` leaves `subscriberCount` out), and Google's token endpoint for the
 * refresh grant (`invalid_grant` once revoked). Errors in Google's envelope
 * (`{"error": {"code", "message", "errors": [{"domain", "reason"}]}}`,
 * https://developers.google.com/youtube/v3/docs/errors).
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeServer, start } from "../fakes/FakeServer.ts"

export interface VideoStatistics {
  viewCount: number
  likeCount?: number | undefined
  commentCount: number
}

export interface YouTubeStatisticsFake extends FakeServer {
  accessToken: string
  refreshToken: string
  revoked: boolean
  readonly videos: Map<string, VideoStatistics>
  channel: { subscriberCount: number; hiddenSubscriberCount: boolean; videoCount: number; viewCount: number }
  /** The next calls answer 403 `quotaExceeded`. */
  quotaExceeded: number
}

const googleError = (code: number, reason: string, message: string, domain = "youtube.api"): FakeReply => ({
  status: code,
  json: { error: { code, message, errors: [{ message, domain, reason }] } }
})

export const make = (): Effect.Effect<YouTubeStatisticsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    let fake: YouTubeStatisticsFake
    let issued = 0
    return Effect.map(
      start({
        route: (request) => ({ "/youtube/v3/videos": "videos", "/youtube/v3/channels": "channels", "/token": "token" })[request.path] ?? "unknown",
        handle: (route, request) => {
          if (route === "token") {
            if (fake.revoked || request.params.refresh_token !== fake.refreshToken) {
              return { status: 400, json: { error: "invalid_grant", error_description: "Token has been expired or revoked." } }
            }
            issued += 1
            fake.accessToken = `ya29.refreshed${issued}`
            return { status: 200, json: { access_token: fake.accessToken, expires_in: 3599, scope: "https://www.googleapis.com/auth/youtube.upload", token_type: "Bearer" } }
          }
          if (request.headers.authorization !== `Bearer ${fake.accessToken}`) {
            return googleError(401, "authError", "Request had invalid authentication credentials.", "global")
          }
          if (fake.quotaExceeded > 0) {
            fake.quotaExceeded -= 1
            return googleError(403, "quotaExceeded", "The request cannot be completed because you have exceeded your quota.")
          }
          if (route === "videos") {
            const ids = (request.params.id ?? "").split(",").filter((id) => id !== "")
            if (ids.length > 50) return googleError(400, "invalidParameter", "Too many ids.")
            const items = ids
              .filter((id) => fake.videos.has(id))
              .map((id) => {
                const s = fake.videos.get(id)!
                return {
                  kind: "youtube#video",
                  etag: `etag-${id}`,
                  id,
                  statistics: {
                    viewCount: String(s.viewCount),
                    ...(s.likeCount === undefined ? {} : { likeCount: String(s.likeCount) }),
                    favoriteCount: "0",
                    commentCount: String(s.commentCount)
                  }
                }
              })
            return { status: 200, json: { kind: "youtube#videoListResponse", etag: "list", items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } } }
          }
          if (route === "channels") {
            const c = fake.channel
            return {
              status: 200,
              json: {
                kind: "youtube#channelListResponse",
                items: [
                  {
                    kind: "youtube#channel",
                    id: "UCmaya0000000000000000",
                    statistics: {
                      viewCount: String(c.viewCount),
                      ...(c.hiddenSubscriberCount ? {} : { subscriberCount: String(c.subscriberCount) }),
                      hiddenSubscriberCount: c.hiddenSubscriberCount,
                      videoCount: String(c.videoCount)
                    }
                  }
                ]
              }
            }
          }
          return googleError(404, "notFound", "Not found.", "global")
        }
      }),
      (server) => {
        fake = Object.assign(server, {
          accessToken: "ya29.first",
          refreshToken: "1//refresh",
          revoked: false,
          videos: new Map<string, VideoStatistics>(),
          channel: { subscriberCount: 7300, hiddenSubscriberCount: false, videoCount: 64, viewCount: 1_250_000 },
          quotaExceeded: 0
        })
        return fake
      }
    )
  })
