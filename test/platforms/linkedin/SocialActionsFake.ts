/**
 * A fake of the LinkedIn reads analytics makes, in LinkedIn's REST shapes (headers
 * `LinkedIn-Version` and `X-Restli-Protocol-Version: 2.0.0` required):
 * `GET /rest/socialActions/{urn}` (`likesSummary.totalLikes`, `commentsSummary.aggregatedTotalComments`,
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/network-update-social-actions;
 * 404 `NOT_FOUND` for a deleted post) and `GET /rest/networkSizes/{organization urn}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`
 * (`firstDegreeSize`). Without the read permission LinkedIn answers 403 `ACCESS_DENIED`
 * (serviceErrorCode 100); a wrong token 401 `REVOKED_ACCESS_TOKEN` (65601).
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeServer, start } from "../fakes/FakeServer.ts"

export interface SocialActionsFake extends FakeServer {
  accessToken: string
  /** The app has the author's read permission. */
  canRead: boolean
  readonly posts: Map<string, { likes: number; comments: number }>
  followers: number
}

const error = (status: number, code: string, serviceErrorCode: number, message: string): FakeReply => ({ status, json: { status, code, serviceErrorCode, message } })

export const make = (): Effect.Effect<SocialActionsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    let fake: SocialActionsFake
    return Effect.map(
      start({
        route: (request) => (request.path.startsWith("/rest/socialActions/") ? "socialActions" : request.path.startsWith("/rest/networkSizes/") ? "networkSizes" : "unknown"),
        handle: (route, request) => {
          if (request.headers["linkedin-version"] === undefined) return error(400, "VERSION_MISSING", 0, "A version must be present.")
          if (request.headers.authorization !== `Bearer ${fake.accessToken}`) return error(401, "REVOKED_ACCESS_TOKEN", 65601, "The token used in the request has been revoked by the user")
          if (!fake.canRead) return error(403, "ACCESS_DENIED", 100, "Not enough permissions to access: socialActions.GET.20251101")
          const urn = decodeURIComponent(request.path.split("/")[3] ?? "")
          if (route === "socialActions") {
            const post = fake.posts.get(urn)
            if (post === undefined) return error(404, "NOT_FOUND", 0, `Not found: ${urn}`)
            return {
              status: 200,
              json: {
                $URN: `urn:li:socialActions:${urn}`,
                target: urn,
                likesSummary: { totalLikes: post.likes, likedByCurrentUser: false, aggregatedTotalLikes: post.likes },
                commentsSummary: { totalFirstLevelComments: post.comments, aggregatedTotalComments: post.comments }
              }
            }
          }
          if (route === "networkSizes" && request.query.get("edgeType") === "COMPANY_FOLLOWED_BY_MEMBER") {
            return { status: 200, json: { firstDegreeSize: fake.followers } }
          }
          return error(404, "NOT_FOUND", 0, "Not found")
        }
      }),
      (server) => {
        fake = Object.assign(server, { accessToken: "li-token", canRead: true, posts: new Map<string, { likes: number; comments: number }>(), followers: 2450 })
        return fake
      }
    )
  })
