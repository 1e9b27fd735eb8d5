/**
 * A fake of the Google APIs YouTube publishing uses, on a real HTTP server (FakeServer.ts), as
 * the documentation describes them:
 *
 * - OAuth: `POST /token` (`authorization_code` with PKCE, `refresh_token`), `POST /revoke`
 *   (https://developers.google.com/identity/protocols/oauth2/web-server);
 * - `GET /youtube/v3/channels?mine=true` (https://developers.google.com/youtube/v3/docs/channels/list);
 * - `videos.insert` resumable (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 *   `POST /upload/youtube/v3/videos?uploadType=resumable` answers `Location`; `PUT` chunks with
 *   `Content-Range` (multiples of 256 KiB but the last), `308` with `Range` until complete, then
 *   `201` with the video resource; `PUT` with `bytes *\/total` asks the status;
 * - `playlistItems.list`, `thumbnails.set`, `commentThreads.list/insert`, `comments.insert`,
 *   `comments.setModerationStatus`, `comments.delete`;
 * - the project's daily units (https://developers.google.com/youtube/v3/determine_quota_cost),
 *   refused with `quotaExceeded` when spent;
 * - error bodies as https://developers.google.com/youtube/v3/docs/errors shows them.
 *
 * Routes: authorize (consents at once), token, revoke, channels, init, chunk, status, playlistItems, thumbnail, threads,
 * threadInsert, reply, moderate, delete.
 */
import { createHash } from "node:crypto"
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, idSequence, start } from "../fakes/FakeServer.ts"

export const uploadScope = "https://www.googleapis.com/auth/youtube.upload"
export const commentsScope = "https://www.googleapis.com/auth/youtube.force-ssl"

/** A Google error body (https://developers.google.com/youtube/v3/docs/errors). */
export const googleError = (code: number, reason: string, message: string, domain = "youtube.video"): FakeReply => ({
  status: code,
  json: { error: { code, message, errors: [{ message, domain, reason }] } }
})

const authError = googleError(401, "authError", "Invalid Credentials", "global")

export interface FakeVideo {
  readonly id: string
  readonly snippet: Record<string, unknown>
  readonly status: Record<string, unknown>
  readonly bytes: number
  readonly publishedAt: string
}

interface Session {
  readonly id: string
  readonly resource: { snippet: Record<string, unknown>; status: Record<string, unknown> }
  readonly total: number | undefined
  received: number
  video: FakeVideo | undefined
}

export interface FakeComment {
  id: string
  videoId: string
  parentId: string | null
  text: string
  authorDisplayName: string
  authorChannelId: string
  publishedAt: string
  moderationStatus: "published" | "heldForReview" | "rejected"
}

export interface YouTubeFake extends FakeServer {
  readonly clientId: string
  readonly clientSecret: string
  /** The channels `mine=true` lists. */
  channels: Array<{ id: string; title: string; customUrl: string; uploads: string }>
  /** Access tokens: lifetime on the fake's clock and scopes. */
  readonly tokens: Map<string, { readonly expiresAt: number; readonly scopes: ReadonlyArray<string>; readonly refresh: string }>
  readonly refreshTokens: Set<string>
  readonly codes: Map<string, { readonly scopes: ReadonlyArray<string>; readonly challenge: string; readonly redirectUri: string }>
  readonly sessions: Map<string, Session>
  readonly videos: Array<FakeVideo>
  readonly comments: Array<FakeComment>
  /** Thumbnails set, by video id. */
  readonly thumbnails: Map<string, number>
  /** The project's units used today and its budget. */
  unitsUsed: number
  dailyUnits: number
  /** `videos.insert` calls today, and the project's bucket of them. */
  uploadsUsed: number
  dailyUploads: number
  /** Sessions answer 404 (expired) from now on. */
  sessionsGone: boolean
  /** The fake's clock offset (ms): tokens expire against it. */
  clockOffsetMs: number
  /** Issues an access token (and its refresh token) as a consent would. */
  grant: (scopes?: ReadonlyArray<string>, lifetimeSec?: number) => { readonly access: string; readonly refresh: string }
  /** Issues an authorization code as the consent page would. */
  issueCode: (redirectUri: string, codeVerifier: string, scopes?: ReadonlyArray<string>) => string
}

const chunkUnit = 256 * 1024

const costs: Record<string, number> = {
  channels: 1,
  // videos.insert has its own bucket (uploadsUsed / dailyUploads), a call counting 1.
  playlistItems: 1,
  thumbnail: 50,
  threads: 1,
  threadInsert: 50,
  reply: 50,
  moderate: 50,
  delete: 50
}

const routeOf = (r: FakeRequest): string => {
  const p = r.path
  if (p === "/o/oauth2/v2/auth") return "authorize"
  if (p === "/token") return "token"
  if (p === "/revoke") return "revoke"
  if (p === "/youtube/v3/channels") return "channels"
  if (p === "/upload/youtube/v3/videos" && r.method === "POST") return "init"
  if (p === "/upload/youtube/v3/videos" && r.method === "PUT") {
    return /^bytes \*\//.test(String(r.headers["content-range"] ?? "")) ? "status" : "chunk"
  }
  if (p === "/youtube/v3/playlistItems") return "playlistItems"
  if (p === "/upload/youtube/v3/thumbnails/set") return "thumbnail"
  if (p === "/youtube/v3/commentThreads") return r.method === "POST" ? "threadInsert" : "threads"
  if (p === "/youtube/v3/comments/setModerationStatus") return "moderate"
  if (p === "/youtube/v3/comments") return r.method === "DELETE" ? "delete" : "reply"
  return "unknown"
}

const utf8 = (s: string) => Buffer.byteLength(s, "utf8")

/** Starts the fake for the length of a scope. */
export const make = (): Effect.Effect<YouTubeFake, never, Scope.Scope> => {
  const token = idSequence("ya29.a0")
  const refresh = idSequence("1//0g")
  const videoId = idSequence("vid")
  const sessionId = idSequence("ADPycdu")
  const commentId = idSequence("Ugz")
  let fake!: YouTubeFake
  const now = () => Date.now() + fake.clockOffsetMs

  const grant = (scopes: ReadonlyArray<string> = [uploadScope, commentsScope], lifetimeSec = 3599) => {
    const r = refresh()
    fake.refreshTokens.add(r)
    const a = token()
    fake.tokens.set(a, { expiresAt: now() + lifetimeSec * 1000, scopes, refresh: r })
    return { access: a, refresh: r }
  }

  /** The bearer token's grant, or the 401 to answer. */
  const authorize = (r: FakeRequest, scope: string): FakeReply | undefined => {
    const bearer = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ""))?.[1]
    const t = bearer === undefined ? undefined : fake.tokens.get(bearer)
    if (t === undefined || t.expiresAt <= now() || !fake.refreshTokens.has(t.refresh)) return authError
    if (!t.scopes.includes(scope) && !(scope === uploadScope && t.scopes.includes(commentsScope))) {
      return googleError(403, "insufficientPermissions", "Request had insufficient authentication scopes.", "global")
    }
    return undefined
  }

  // https://developers.google.com/youtube/v3/determine_quota_cost: "100 videos.insert calls,
  // and 10,000 units per day combined for all other endpoints".
  const spend = (route: string): FakeReply | undefined => {
    const cost = costs[route] ?? 0
    const uploadsSpent = route === "init" && fake.uploadsUsed + 1 > fake.dailyUploads
    if (uploadsSpent || fake.unitsUsed + cost > fake.dailyUnits) {
      return googleError(
        403,
        "quotaExceeded",
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        "youtube.quota"
      )
    }
    fake.unitsUsed += cost
    if (route === "init") fake.uploadsUsed += 1
    return undefined
  }

  const videoResource = (v: FakeVideo) => ({ kind: "youtube#video", id: v.id, snippet: v.snippet, status: v.status })

  const commentResource = (c: FakeComment) => ({
    kind: "youtube#comment",
    id: c.id,
    snippet: {
      videoId: c.videoId,
      textDisplay: c.text,
      textOriginal: c.text,
      authorDisplayName: c.authorDisplayName,
      authorChannelId: { value: c.authorChannelId },
      ...(c.parentId === null ? {} : { parentId: c.parentId }),
      likeCount: 0,
      publishedAt: c.publishedAt,
      updatedAt: c.publishedAt
    }
  })

  const handle = (route: string, r: FakeRequest): FakeReply => {
    switch (route) {
      case "authorize": {
        // The person signs in and allows at once (https://developers.google.com/identity/protocols/oauth2/web-server#redirecting).
        const q = r.params
        if (q.client_id !== fake.clientId) return { status: 401, json: { error: "invalid_client" } }
        if (q.response_type !== "code" || q.code_challenge_method !== "S256" || q.redirect_uri === undefined) {
          return { status: 400, json: { error: "invalid_request" } }
        }
        const scopes = (q.scope ?? "").split(" ").filter((x) => x !== "")
        const code = `4/0A${token().slice(7)}`
        fake.codes.set(code, { scopes, challenge: q.code_challenge ?? "", redirectUri: q.redirect_uri })
        const back = new URL(q.redirect_uri)
        back.search = new URLSearchParams({ state: q.state ?? "", code, scope: scopes.join(" ") }).toString()
        return { status: 302, json: null, headers: { location: back.toString() } }
      }
      case "token": {
        if (r.params.client_id !== fake.clientId || r.params.client_secret !== fake.clientSecret) {
          return { status: 401, json: { error: "invalid_client", error_description: "The OAuth client was not found." } }
        }
        if (r.params.grant_type === "authorization_code") {
          const code = fake.codes.get(r.params.code ?? "")
          fake.codes.delete(r.params.code ?? "")
          if (code === undefined || code.redirectUri !== r.params.redirect_uri) {
            return { status: 400, json: { error: "invalid_grant", error_description: "Malformed auth code." } }
          }
          const challenge = createHash("sha256").update(r.params.code_verifier ?? "").digest("base64url")
          if (challenge !== code.challenge) {
            return { status: 400, json: { error: "invalid_grant", error_description: "Invalid code verifier." } }
          }
          const g = grant(code.scopes)
          return {
            status: 200,
            json: { access_token: g.access, expires_in: 3599, refresh_token: g.refresh, scope: code.scopes.join(" "), token_type: "Bearer" }
          }
        }
        if (r.params.grant_type === "refresh_token") {
          const rt = r.params.refresh_token ?? ""
          if (!fake.refreshTokens.has(rt)) {
            return { status: 400, json: { error: "invalid_grant", error_description: "Token has been expired or revoked." } }
          }
          const previous = [...fake.tokens.values()].find((t) => t.refresh === rt)
          const a = token()
          const scopes = previous?.scopes ?? [uploadScope, commentsScope]
          fake.tokens.set(a, { expiresAt: now() + 3599_000, scopes, refresh: rt })
          // Google does not rotate the refresh token: the answer carries none.
          return { status: 200, json: { access_token: a, expires_in: 3599, scope: scopes.join(" "), token_type: "Bearer" } }
        }
        return { status: 400, json: { error: "unsupported_grant_type", error_description: "Invalid grant_type" } }
      }
      case "revoke": {
        const t = r.params.token ?? ""
        const access = fake.tokens.get(t)
        const rt = access?.refresh ?? t
        if (!fake.refreshTokens.has(rt)) return { status: 400, json: { error: "invalid_token", error_description: "Token expired or revoked" } }
        fake.refreshTokens.delete(rt)
        return { status: 200, json: {} }
      }
      case "channels": {
        const refused = authorize(r, uploadScope) ?? spend(route)
        if (refused !== undefined) return refused
        if (r.params.mine !== "true") return googleError(400, "missingRequiredParameter", "No filter selected.", "youtube.parameter")
        return {
          status: 200,
          json: {
            kind: "youtube#channelListResponse",
            items: fake.channels.map((c) => ({
              kind: "youtube#channel",
              id: c.id,
              snippet: { title: c.title, customUrl: c.customUrl, thumbnails: { default: { url: `https://yt3.ggpht.example/${c.id}=s88` } } },
              contentDetails: { relatedPlaylists: { likes: "", uploads: c.uploads } }
            }))
          }
        }
      }
      case "init": {
        const refused = authorize(r, uploadScope)
        if (refused !== undefined) return refused
        if (r.params.uploadType !== "resumable") return googleError(400, "badRequest", "uploadType must be resumable", "global")
        const resource = r.json as { snippet?: Record<string, unknown>; status?: Record<string, unknown> } | undefined
        const snippet = resource?.snippet ?? {}
        const status = resource?.status ?? {}
        const title = typeof snippet.title === "string" ? snippet.title : ""
        // https://developers.google.com/youtube/v3/docs/videos#snippet.title
        if (title === "" || Array.from(title).length > 100 || /[<>]/.test(title)) {
          return googleError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title.")
        }
        const description = typeof snippet.description === "string" ? snippet.description : ""
        if (utf8(description) > 5000 || /[<>]/.test(description)) {
          return googleError(400, "invalidDescription", "The request metadata specifies an invalid video description.")
        }
        const tags = Array.isArray(snippet.tags) ? (snippet.tags as Array<string>) : []
        const tagChars = tags.reduce((n, t) => n + t.length + (/\s/.test(t) ? 2 : 0), 0) + Math.max(0, tags.length - 1)
        if (tagChars > 500) return googleError(400, "invalidTags", "The request metadata specifies invalid video keywords.")
        if (status.privacyStatus !== undefined && !["public", "unlisted", "private"].includes(String(status.privacyStatus))) {
          return googleError(400, "invalidVideoMetadata", "The request metadata is invalid.")
        }
        const type = String(r.headers["x-upload-content-type"] ?? "video/*")
        if (!type.startsWith("video/") && type !== "application/octet-stream") {
          return googleError(400, "badContent", "Media type is not supported.", "global")
        }
        const quota = spend(route)
        if (quota !== undefined) return quota
        const id = sessionId()
        const length = r.headers["x-upload-content-length"]
        fake.sessions.set(id, {
          id,
          resource: { snippet: { ...snippet, title, description }, status },
          total: length === undefined ? undefined : Number(length),
          received: 0,
          video: undefined
        })
        return {
          status: 200,
          json: null,
          headers: { location: `${fake.origin}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${id}` }
        }
      }
      case "status":
      case "chunk": {
        const refused = authorize(r, uploadScope)
        if (refused !== undefined) return refused
        const session = fake.sessions.get(r.params.upload_id ?? "")
        if (session === undefined || fake.sessionsGone) return googleError(404, "notFound", "Not Found", "global")
        if (session.video !== undefined) return { status: 200, json: videoResource(session.video) }
        const range = String(r.headers["content-range"] ?? "")
        const incomplete = (): FakeReply => ({
          status: 308,
          json: null,
          headers: session.received === 0 ? {} : { range: `bytes=0-${session.received - 1}` }
        })
        if (route === "status") return incomplete()
        const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range)
        if (m === null) return googleError(400, "badRequest", "Invalid Content-Range header", "global")
        const [from, to, total] = [Number(m[1]), Number(m[2]), Number(m[3])]
        const length = to - from + 1
        // The body's size as sent (the fake server reads bodies as text; Content-Length counts bytes).
        const sent = Number(r.headers["content-length"] ?? r.body.length)
        if (sent !== length) return googleError(400, "badRequest", "Content-Range does not match the body", "global")
        // Chunks are multiples of 256 KiB, but the last (the resumable upload protocol).
        if (to + 1 < total && length % chunkUnit !== 0) {
          return googleError(400, "badRequest", "Chunk size must be a multiple of 256 KiB", "global")
        }
        // A chunk that does not start where the server is: it keeps what it has.
        if (from !== session.received) return incomplete()
        session.received = to + 1
        if (session.received < total) return incomplete()
        const video: FakeVideo = {
          id: videoId(),
          snippet: { ...session.resource.snippet, channelId: fake.channels[0]?.id },
          status: { uploadStatus: "uploaded", privacyStatus: "public", ...session.resource.status },
          bytes: total,
          publishedAt: new Date(now()).toISOString()
        }
        session.video = video
        fake.videos.push(video)
        return { status: 201, json: videoResource(video) }
      }
      case "playlistItems": {
        const refused = authorize(r, uploadScope) ?? spend(route)
        if (refused !== undefined) return refused
        const channel = fake.channels.find((c) => c.uploads === r.params.playlistId)
        if (channel === undefined) {
          return googleError(404, "playlistNotFound", "The playlist identified with the request's playlistId parameter cannot be found.")
        }
        const items = [...fake.videos].reverse().map((v) => ({
          kind: "youtube#playlistItem",
          id: `pl-${v.id}`,
          snippet: { publishedAt: v.publishedAt, title: v.snippet.title, resourceId: { kind: "youtube#video", videoId: v.id } },
          contentDetails: { videoId: v.id, videoPublishedAt: v.publishedAt }
        }))
        return { status: 200, json: { kind: "youtube#playlistItemListResponse", items } }
      }
      case "thumbnail": {
        const refused = authorize(r, uploadScope) ?? spend(route)
        if (refused !== undefined) return refused
        if (!fake.videos.some((v) => v.id === r.params.videoId)) {
          return googleError(404, "videoNotFound", "The video that you are trying to update cannot be found.")
        }
        fake.thumbnails.set(r.params.videoId!, r.body.length)
        return { status: 200, json: { kind: "youtube#thumbnailSetResponse", items: [{ default: { url: "https://i.ytimg.example/t.jpg" } }] } }
      }
      case "threads": {
        const refused = authorize(r, commentsScope) ?? spend(route)
        if (refused !== undefined) return refused
        const video = r.params.videoId
        const tops = fake.comments
          .filter((c) => c.videoId === video && c.parentId === null && c.moderationStatus === "published")
          .sort((a, b) => b.publishedAt.localeCompare(a.publishedAt))
        const size = Number(r.params.maxResults ?? "20")
        const offset = Number(r.params.pageToken ?? "0")
        const page = tops.slice(offset, offset + size)
        return {
          status: 200,
          json: {
            kind: "youtube#commentThreadListResponse",
            ...(offset + size < tops.length ? { nextPageToken: String(offset + size) } : {}),
            items: page.map((c) => {
              const replies = fake.comments.filter((x) => x.parentId === c.id && x.moderationStatus === "published")
              return {
                kind: "youtube#commentThread",
                id: c.id,
                snippet: { videoId: c.videoId, topLevelComment: commentResource(c), totalReplyCount: replies.length },
                ...(replies.length === 0 ? {} : { replies: { comments: replies.map(commentResource) } })
              }
            })
          }
        }
      }
      case "threadInsert":
      case "reply": {
        const refused = authorize(r, commentsScope) ?? spend(route)
        if (refused !== undefined) return refused
        const body = r.json as { snippet?: Record<string, unknown> } | undefined
        const snippet = body?.snippet ?? {}
        const channel = fake.channels[0]!
        const at = new Date(now()).toISOString()
        if (route === "reply") {
          const parent = fake.comments.find((c) => c.id === snippet.parentId)
          if (parent === undefined) return googleError(404, "parentCommentNotFound", "The specified parent comment could not be found.")
          const text = String(snippet.textOriginal ?? "")
          if (text === "") return googleError(400, "commentTextRequired", "The comment resource must contain a snippet.textOriginal property.")
          const c: FakeComment = { id: `${parent.id}.${commentId()}`, videoId: parent.videoId, parentId: parent.id, text, authorDisplayName: `@${channel.customUrl}`, authorChannelId: channel.id, publishedAt: at, moderationStatus: "published" }
          fake.comments.push(c)
          return { status: 200, json: commentResource(c) }
        }
        const top = (snippet.topLevelComment as { snippet?: { textOriginal?: string } } | undefined)?.snippet
        const c: FakeComment = { id: commentId(), videoId: String(snippet.videoId), parentId: null, text: String(top?.textOriginal ?? ""), authorDisplayName: `@${channel.customUrl}`, authorChannelId: channel.id, publishedAt: at, moderationStatus: "published" }
        fake.comments.push(c)
        return { status: 200, json: { kind: "youtube#commentThread", id: c.id, snippet: { videoId: c.videoId, topLevelComment: commentResource(c) } } }
      }
      case "moderate": {
        const refused = authorize(r, commentsScope) ?? spend(route)
        if (refused !== undefined) return refused
        const c = fake.comments.find((x) => x.id === r.params.id)
        if (c === undefined) return googleError(404, "commentNotFound", "One or more comments identified by the id parameter could not be found.")
        const status = r.params.moderationStatus
        if (status !== "heldForReview" && status !== "published" && status !== "rejected") {
          return googleError(400, "invalidModerationStatus", "The moderation status specified in the API request is not valid.")
        }
        c.moderationStatus = status
        return { status: 204, json: null }
      }
      case "delete": {
        const refused = authorize(r, commentsScope) ?? spend(route)
        if (refused !== undefined) return refused
        const c = fake.comments.find((x) => x.id === r.params.id)
        if (c === undefined) return googleError(404, "commentNotFound", "The comment could not be found.")
        // comments.delete deletes the caller's own comments only.
        if (c.authorChannelId !== fake.channels[0]?.id) return googleError(403, "forbidden", "The comment could not be deleted.")
        fake.comments.splice(fake.comments.indexOf(c), 1)
        return { status: 204, json: null }
      }
      default:
        return googleError(404, "notFound", `No route ${r.method} ${r.path}`, "global")
    }
  }

  return Effect.map(start({ route: routeOf, handle: (route, r) => handle(route, r) }), (server) => {
    fake = Object.assign(server, {
      // One project per fake (its port in the client id): the server counts units per client id.
      clientId: `${new URL(server.origin).port}-abc.apps.googleusercontent.com`,
      clientSecret: "GOCSPX-fake-secret",
      channels: [{ id: "UCmaya0000000000000000aa", title: "Maya Bakes", customUrl: "@mayabakes", uploads: "UUmaya0000000000000000aa" }],
      tokens: new Map(),
      refreshTokens: new Set<string>(),
      codes: new Map(),
      sessions: new Map<string, Session>(),
      videos: [],
      comments: [],
      thumbnails: new Map<string, number>(),
      unitsUsed: 0,
      dailyUnits: 10_000,
      uploadsUsed: 0,
      dailyUploads: 100,
      sessionsGone: false,
      clockOffsetMs: 0,
      grant,
      issueCode: (redirectUri: string, codeVerifier: string, scopes: ReadonlyArray<string> = [uploadScope, commentsScope]) => {
        const code = `4/0A${token().slice(7)}`
        fake.codes.set(code, { scopes, challenge: createHash("sha256").update(codeVerifier).digest("base64url"), redirectUri })
        return code
      }
    }) as YouTubeFake
    return fake
  })
}

/** The server's settings that connect YouTube channels through `fake` (Google's consent, token, revoke and API). */
export const connectEnv = (fake: YouTubeFake): Readonly<Record<string, string>> => ({
  POSTWIRE_YOUTUBE_CLIENT_ID: fake.clientId,
  POSTWIRE_YOUTUBE_CLIENT_SECRET: fake.clientSecret,
  POSTWIRE_YOUTUBE_AUTHORIZE_URL: `${fake.url}/o/oauth2/v2/auth`,
  POSTWIRE_YOUTUBE_TOKEN_URL: `${fake.url}/token`,
  POSTWIRE_YOUTUBE_REVOKE_URL: `${fake.url}/revoke`,
  POSTWIRE_YOUTUBE_API_URL: `${fake.url}/youtube/v3`
})
