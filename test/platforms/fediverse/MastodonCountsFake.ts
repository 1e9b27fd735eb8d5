/**
 * A fake of the Mastodon reads analytics makes: `GET /api/v1/statuses?id[]=…` (4.3 and later:
 * at most 20 ids, else 422; statuses that do not exist left out,
 * https://docs.joinmastodon.org/methods/statuses/#index), `GET /api/v1/statuses/:id` (404
 * `{"error":"Record not found"}` for a deleted one), `GET /api/v1/accounts/:id`, with the counts
 * of the Status and Account entities. `multiple: false` plays a server older than 4.3 (the
 * multiple read answers 404). A wrong token answers 401 `{"error":"The access token is invalid"}`;
 * `rateLimited` answers 429 with `X-RateLimit-Reset`
 * (https://docs.joinmastodon.org/api/rate-limits/).
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeServer, start } from "../fakes/FakeServer.ts"

export interface StatusCounts {
  favourites_count: number
  reblogs_count: number
  replies_count: number
}

export interface MastodonCountsFake extends FakeServer {
  readonly accountId: string
  accessToken: string
  /** The server has the multiple-status read (Mastodon 4.3+). */
  multiple: boolean
  readonly statuses: Map<string, StatusCounts>
  account: { followers_count: number; following_count: number; statuses_count: number }
  rateLimited: { remaining: number; resetAt: string }
  readonly credentials: () => string
}

const status = (id: string, counts: StatusCounts) => ({
  id,
  created_at: "2026-12-05T10:00:00.000Z",
  visibility: "public",
  uri: `https://mastodon.example/users/maya/statuses/${id}`,
  content: "<p>Fresh bread</p>",
  ...counts
})

export const make = (): Effect.Effect<MastodonCountsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    let fake: MastodonCountsFake
    const notFound: FakeReply = { status: 404, json: { error: "Record not found" } }
    return Effect.map(
      start({
        route: (request) =>
          request.path === "/api/v1/statuses" ? "statuses" : request.path.startsWith("/api/v1/statuses/") ? "status" : request.path.startsWith("/api/v1/accounts/") ? "account" : "unknown",
        handle: (route, request) => {
          if (request.headers.authorization !== `Bearer ${fake.accessToken}`) return { status: 401, json: { error: "The access token is invalid" } }
          if (fake.rateLimited.remaining > 0) {
            fake.rateLimited.remaining -= 1
            return { status: 429, json: { error: "Too many requests" }, headers: { "x-ratelimit-limit": "300", "x-ratelimit-remaining": "0", "x-ratelimit-reset": fake.rateLimited.resetAt } }
          }
          switch (route) {
            case "statuses": {
              if (!fake.multiple) return notFound
              const ids = request.query.getAll("id[]")
              if (ids.length > 20) return { status: 422, json: { error: "Validation failed: too many ids" } }
              return { status: 200, json: ids.filter((id) => fake.statuses.has(id)).map((id) => status(id, fake.statuses.get(id)!)) }
            }
            case "status": {
              const id = decodeURIComponent(request.path.split("/")[4] ?? "")
              const counts = fake.statuses.get(id)
              return counts === undefined ? notFound : { status: 200, json: status(id, counts) }
            }
            case "account": {
              const id = decodeURIComponent(request.path.split("/")[4] ?? "")
              if (id !== fake.accountId) return notFound
              return { status: 200, json: { id, username: "maya", acct: "maya", display_name: "Maya", ...fake.account } }
            }
            default:
              return notFound
          }
        }
      }),
      (server) => {
        fake = Object.assign(server, {
          accountId: "109876543210",
          accessToken: "mastodon-token",
          multiple: true,
          statuses: new Map<string, StatusCounts>(),
          account: { followers_count: 530, following_count: 210, statuses_count: 1204 },
          rateLimited: { remaining: 0, resetAt: "" },
          credentials: () =>
            JSON.stringify({ server: server.url, access_token: fake.accessToken, client_id: "cid", client_secret: "csecret", account_id: fake.accountId })
        })
        return fake
      }
    )
  })
