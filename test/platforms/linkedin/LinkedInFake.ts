/**
 * A fake of LinkedIn's versioned REST APIs, as the documentation describes them:
 *
 * - every `/rest/…` call must carry `LinkedIn-Version` (a version the fake serves) and
 *   `X-Restli-Protocol-Version: 2.0.0`, or it is refused as LinkedIn refuses it (400
 *   `VERSION_MISSING`, 426 `NONEXISTENT_VERSION`)
 *   https://learn.microsoft.com/en-us/linkedin/marketing/versioning
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 * - errors in LinkedIn's body `{"status", "serviceErrorCode", "code", "message"}`
 *   https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling
 * - Images API: `POST /rest/images?action=initializeUpload`, the PUT of the bytes (with the
 *   bearer token), `GET /rest/images/{urn}` (`WAITING_UPLOAD`, `PROCESSING`, `AVAILABLE`)
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api
 * - Videos API: `initializeUpload` with `fileSizeBytes` (75 KB to 500 MB), one upload
 *   instruction per part (`partSize` bytes, 4 MB at LinkedIn), each PUT answered with an `ETag`,
 *   `finalizeUpload` with the ETags in order, `GET /rest/videos/{urn}` (`PROCESSING` → `AVAILABLE`)
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api
 * - Posts API: `POST /rest/posts` (201, the URN in `x-restli-id`), commentary up to 3,000
 *   characters, MultiImage 2–20 images, media that must be `AVAILABLE` and the author's;
 *   `GET /rest/posts?author=…&q=author` newest first, which needs `r_member_social` (a member's
 *   posts) or `r_organization_social` (a page's)
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 * - Comments API: `GET`/`POST /rest/socialActions/{urn}/comments` where `{urn}` is a post, or a
 *   comment for its answers ("Get Comments on Comments"; an answer is created on the comment's URN
 *   with `object` the post and `parentComment` that comment), each comment with its
 *   `commentsSummary.totalFirstLevelComments`; `DELETE …/comments/{id}?actor=`
 *   https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api
 * - the token endpoint's `grant_type=refresh_token` (`/oauth/v2/accessToken`).
 *
 * Routes: `image-init`, `image-upload`, `image-status`, `video-init`, `video-part`,
 * `video-finalize`, `video-status`, `post`, `posts-by-author`, `comments`, `comment-create`,
 * `comment-delete`, `refresh`, `unknown`.
 */
import { Effect, type Scope } from "effect"
import * as FakeServer from "../fakes/FakeServer.ts"
import type { FakeReply, FakeRequest } from "../fakes/FakeServer.ts"

/** The member the fake's token belongs to. */
export const member = "urn:li:person:Xk4mR2pQ9a"
/** The company page the member administers. */
export const organization = "urn:li:organization:2414183"

/** A post the fake holds. */
export interface FakePost {
  readonly id: string
  readonly body: Record<string, unknown>
  readonly createdAt: number
}

/** A comment the fake holds. */
export interface FakeComment {
  readonly id: string
  readonly object: string
  readonly actor: string
  readonly text: string
  readonly parentComment: string | undefined
  readonly createdAt: number
}

interface Asset {
  readonly urn: string
  readonly owner: string
  uploaded: boolean
  statusReads: number
  readonly parts: Array<{ readonly first: number; readonly last: number; etag: string | undefined }>
  finalized: boolean
}

/** The fake and the knobs a test turns. */
export interface LinkedInFake extends FakeServer.FakeServer {
  /** The valid access token, its scopes, and the refresh token (when the app has programmatic refresh). */
  accessToken: string
  scopes: Array<string>
  refreshToken: string | undefined
  readonly clientId: string
  readonly clientSecret: string
  /** The versions the fake serves (`LinkedIn-Version`). */
  versions: Array<string>
  /** Status reads an upload stays `PROCESSING` before `AVAILABLE`. */
  pollsBeforeAvailable: number
  /** An upload's processing fails (`PROCESSING_FAILED`). */
  processingFails: boolean
  /** Bytes per video part (LinkedIn: 4,194,304). */
  partSize: number
  readonly posts: Array<FakePost>
  readonly comments: Array<FakeComment>
  readonly images: Map<string, Asset>
  readonly videos: Map<string, Asset>
  /** Someone comments on a post; with `parentComment` (a comment's URN), answers that comment. */
  readonly comment: (object: string, actor: string, text: string, parentComment?: string) => FakeComment
}

/** LinkedIn's error body. */
export const linkedInError = (status: number, code: string | undefined, message: string, serviceErrorCode?: number): FakeReply => ({
  status,
  json: { status, ...(serviceErrorCode === undefined ? {} : { serviceErrorCode }), ...(code === undefined ? {} : { code }), message }
})

const accessDenied = (what: string) => linkedInError(403, "ACCESS_DENIED", `Not enough permissions to access: ${what}`, 100)

/** A decoded URN from a path segment. */
const urnOf = (segment: string) => decodeURIComponent(segment)

const route = (request: FakeRequest): string => {
  const { method, path } = request
  const action = request.query.get("action")
  if (path === "/oauth/v2/accessToken") return "refresh"
  if (path.startsWith("/upload/image/")) return "image-upload"
  if (path.startsWith("/upload/video/")) return "video-part"
  if (path === "/rest/images" && action === "initializeUpload") return "image-init"
  if (path.startsWith("/rest/images/")) return "image-status"
  if (path === "/rest/videos" && action === "initializeUpload") return "video-init"
  if (path === "/rest/videos" && action === "finalizeUpload") return "video-finalize"
  if (path.startsWith("/rest/videos/")) return "video-status"
  if (path === "/rest/posts" && method === "POST") return "post"
  if (path === "/rest/posts" && method === "GET") return "posts-by-author"
  if (/^\/rest\/socialActions\/[^/]+\/comments$/.test(path)) return method === "POST" ? "comment-create" : "comments"
  if (/^\/rest\/socialActions\/[^/]+\/comments\/[^/]+$/.test(path) && method === "DELETE") return "comment-delete"
  return "unknown"
}

/** Starts the fake for the length of a scope. */
export const make = (): Effect.Effect<LinkedInFake, never, Scope.Scope> =>
  Effect.gen(function* () {
    let fake!: LinkedInFake
    let sequence = 7_140_000_000_000_000_000n
    const next = () => {
      sequence += 1n
      return String(sequence)
    }
    const server = yield* FakeServer.start({
      route,
      handle: (name, request) => handle(fake, name, request, next)
    })
    fake = Object.assign(server, {
      accessToken: "AQV-linkedin-access-1",
      scopes: ["openid", "profile", "w_member_social", "w_organization_social", "r_organization_social", "r_organization_admin"],
      refreshToken: "AQX-linkedin-refresh-1" as string | undefined,
      clientId: "86linkedinclient",
      clientSecret: "linkedin-client-secret",
      versions: ["202610", "202611"],
      pollsBeforeAvailable: 0,
      processingFails: false,
      partSize: 4_194_304,
      posts: [] as Array<FakePost>,
      comments: [] as Array<FakeComment>,
      images: new Map<string, Asset>(),
      videos: new Map<string, Asset>(),
      comment: (object: string, actor: string, text: string, parentComment?: string) => {
        const created: FakeComment = { id: next(), object, actor, text, parentComment, createdAt: Date.now() }
        fake.comments.push(created)
        return created
      }
    })
    return fake
  })

/** Whether the token may act for `author`: the member, or a page the member administers. */
const mayActFor = (fake: LinkedInFake, author: unknown) =>
  (author === member && fake.scopes.includes("w_member_social")) ||
  (author === organization && fake.scopes.includes("w_organization_social"))

/** Whether the token may read `author`'s posts and comments. */
const mayRead = (fake: LinkedInFake, author: string) =>
  (author === member && fake.scopes.includes("r_member_social")) ||
  (author === organization && fake.scopes.includes("r_organization_social"))

/** A comment's URN: `urn:li:comment:({post urn},{id})`, answers included. */
export const commentUrnOf = (c: FakeComment): string => `urn:li:comment:(${c.object},${c.id})`

/** The answers directly under a comment, oldest first. */
const answersTo = (fake: LinkedInFake, urn: string) =>
  fake.comments.filter((c) => c.parentComment === urn).sort((a, b) => a.createdAt - b.createdAt)

const commentJson = (fake: LinkedInFake, c: FakeComment) => ({
  id: c.id,
  commentUrn: commentUrnOf(c),
  actor: c.actor,
  object: c.object,
  message: { text: c.text },
  created: { actor: c.actor, time: c.createdAt },
  lastModified: { actor: c.actor, time: c.createdAt },
  ...(c.parentComment === undefined ? {} : { parentComment: c.parentComment }),
  likesSummary: { totalLikes: 0, likedByCurrentUser: false },
  commentsSummary: {
    totalFirstLevelComments: answersTo(fake, commentUrnOf(c)).length,
    aggregatedTotalComments: answersTo(fake, commentUrnOf(c)).length,
    selectedComments: []
  }
})

const assetStatus = (fake: LinkedInFake, asset: Asset) => {
  if (!asset.uploaded) return "WAITING_UPLOAD"
  if (asset.statusReads < fake.pollsBeforeAvailable) return "PROCESSING"
  return fake.processingFails ? "PROCESSING_FAILED" : "AVAILABLE"
}

const handle = (fake: LinkedInFake, name: string, request: FakeRequest, next: () => string): FakeReply => {
  if (name === "refresh") return refresh(fake, request)
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
  if (name === "video-part") return videoPart(fake, request)
  if (token !== fake.accessToken) {
    return linkedInError(401, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired", 65602)
  }
  if (name === "image-upload") return imageUpload(fake, request)
  if (request.path.startsWith("/rest/")) {
    const version = request.headers["linkedin-version"]
    if (version === undefined || version === "") {
      return linkedInError(400, "VERSION_MISSING", "A version must be present. Please specify a version by adding the LinkedIn-Version header.")
    }
    if (!fake.versions.includes(String(version))) {
      return linkedInError(426, "NONEXISTENT_VERSION", `Requested version ${String(version)} is not active`)
    }
    if (request.headers["x-restli-protocol-version"] !== "2.0.0") {
      return linkedInError(400, undefined, "Rest.li protocol version 2.0.0 is required: add the X-Restli-Protocol-Version header")
    }
  }
  const body = (request.json ?? {}) as Record<string, unknown>
  switch (name) {
    case "image-init": {
      const owner = (body.initializeUploadRequest as Record<string, unknown> | undefined)?.owner
      if (!mayActFor(fake, owner)) return accessDenied(`/images.owner ${String(owner)}`)
      const id = `C4D10AQ${next()}`
      fake.images.set(`urn:li:image:${id}`, { urn: `urn:li:image:${id}`, owner: String(owner), uploaded: false, statusReads: 0, parts: [], finalized: true })
      return { status: 200, json: { value: { uploadUrlExpiresAt: Date.now() + 86_400_000, uploadUrl: `${fake.url}/upload/image/${id}`, image: `urn:li:image:${id}` } } }
    }
    case "image-status":
    case "video-status": {
      const urn = urnOf(request.path.split("/").pop() ?? "")
      const asset = (name === "image-status" ? fake.images : fake.videos).get(urn)
      if (asset === undefined) return linkedInError(404, "NOT_FOUND", `${urn} not found`)
      const status = assetStatus(fake, asset)
      if (asset.uploaded) asset.statusReads += 1
      return { status: 200, json: { id: urn, owner: asset.owner, status, ...(status === "PROCESSING_FAILED" ? { processingFailureReason: "Unsupported media" } : {}) } }
    }
    case "video-init": {
      const init = (body.initializeUploadRequest ?? {}) as Record<string, unknown>
      if (!mayActFor(fake, init.owner)) return accessDenied(`/videos.owner ${String(init.owner)}`)
      const size = init.fileSizeBytes
      if (typeof size !== "number" || size < 75 * 1024 || size > 500 * 1024 * 1024) {
        return linkedInError(400, undefined, `fileSizeBytes ${String(size)} is outside the allowed range of 75 KB to 500 MB`)
      }
      const id = `D5510AQ${next()}`
      const urn = `urn:li:video:${id}`
      const parts: Asset["parts"] = []
      for (let first = 0; first < size; first += fake.partSize) parts.push({ first, last: Math.min(size, first + fake.partSize) - 1, etag: undefined })
      fake.videos.set(urn, { urn, owner: String(init.owner), uploaded: false, statusReads: 0, parts, finalized: false })
      return {
        status: 200,
        json: {
          value: {
            uploadUrlsExpireAt: Date.now() + 86_400_000,
            video: urn,
            uploadInstructions: parts.map((p, n) => ({ uploadUrl: `${fake.url}/upload/video/${id}/${n}`, firstByte: p.first, lastByte: p.last })),
            uploadToken: ""
          }
        }
      }
    }
    case "video-finalize": {
      const finalize = (body.finalizeUploadRequest ?? {}) as Record<string, unknown>
      const video = fake.videos.get(String(finalize.video))
      if (video === undefined) return linkedInError(404, "NOT_FOUND", `${String(finalize.video)} not found`)
      const ids = finalize.uploadedPartIds
      const expected = video.parts.map((p) => p.etag)
      if (!Array.isArray(ids) || expected.some((e) => e === undefined) || JSON.stringify(ids) !== JSON.stringify(expected)) {
        return linkedInError(400, undefined, "uploadedPartIds must list every part's ETag in order")
      }
      video.finalized = true
      video.uploaded = true
      return { status: 200, json: {} }
    }
    case "post":
      return createPost(fake, body, next)
    case "posts-by-author": {
      const author = request.query.get("author") ?? ""
      if (request.query.get("q") !== "author") return linkedInError(400, undefined, "q=author is required")
      if (!mayRead(fake, author)) return accessDenied(`/posts?author=${author}`)
      const count = Number(request.query.get("count") ?? "10")
      const elements = fake.posts
        .filter((p) => p.body.author === author)
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, count)
        .map((p) => ({ id: p.id, ...p.body, createdAt: p.createdAt, lastModifiedAt: p.createdAt }))
      return { status: 200, json: { elements, paging: { start: 0, count, total: elements.length } } }
    }
    case "comments": {
      // A post's comments, or a comment's answers ("Get Comments on Comments": the comment's URN in the path).
      const object = urnOf(request.path.split("/")[3] ?? "")
      const parent = fake.comments.find((c) => commentUrnOf(c) === object)
      const post = fake.posts.find((p) => p.id === (parent?.object ?? object))
      if (post === undefined) return linkedInError(404, "NOT_FOUND", `${object} not found`)
      if (!mayRead(fake, String(post.body.author))) return accessDenied(`/socialActions/${object}/comments`)
      const start = Number(request.query.get("start") ?? "0")
      const count = Number(request.query.get("count") ?? "10")
      const all =
        parent === undefined
          ? fake.comments.filter((c) => c.object === object && c.parentComment === undefined).sort((a, b) => a.createdAt - b.createdAt)
          : answersTo(fake, object)
      return { status: 200, json: { elements: all.slice(start, start + count).map((c) => commentJson(fake, c)), paging: { start, count, total: all.length } } }
    }
    case "comment-create": {
      // On a post (its URN in the path), or an answer (the answered comment's URN in the path,
      // `object` the post, `parentComment` the comment).
      const target = urnOf(request.path.split("/")[3] ?? "")
      const parent = fake.comments.find((c) => commentUrnOf(c) === target)
      const object = parent?.object ?? target
      if (!mayActFor(fake, body.actor)) return accessDenied(`/socialActions/${target}/comments.actor`)
      const text = (body.message as Record<string, unknown> | undefined)?.text
      if (typeof text !== "string" || body.object !== object) return linkedInError(400, undefined, "actor, object and message.text are required")
      if (parent !== undefined && body.parentComment !== target) {
        return linkedInError(400, undefined, `/parentComment must be ${target}, the comment in the request's path`)
      }
      if (parent === undefined && typeof body.parentComment === "string" && !fake.comments.some((c) => commentUrnOf(c) === body.parentComment)) {
        return linkedInError(404, "NOT_FOUND", `${body.parentComment} not found`)
      }
      const created: FakeComment = {
        id: next(),
        object,
        actor: String(body.actor),
        text,
        parentComment: typeof body.parentComment === "string" ? body.parentComment : undefined,
        createdAt: Date.now()
      }
      fake.comments.push(created)
      return { status: 201, json: commentJson(fake, created), headers: { "x-restli-id": created.id } }
    }
    case "comment-delete": {
      const segments = request.path.split("/")
      const id = decodeURIComponent(segments[5] ?? "")
      const actor = request.query.get("actor") ?? ""
      const index = fake.comments.findIndex((c) => c.id === id)
      if (index < 0) return linkedInError(404, "NOT_FOUND", `comment ${id} not found`)
      if (fake.comments[index]!.actor !== actor || !mayActFor(fake, actor)) return accessDenied(`/socialActions/comments/${id}`)
      fake.comments.splice(index, 1)
      return { status: 204, raw: "" }
    }
    default:
      return linkedInError(404, "NOT_FOUND", `No resource found for ${request.method} ${request.path}`)
  }
}

const imageUpload = (fake: LinkedInFake, request: FakeRequest): FakeReply => {
  const image = fake.images.get(`urn:li:image:${request.path.split("/").pop()}`)
  if (image === undefined || request.method !== "PUT") return linkedInError(404, "NOT_FOUND", "upload not found")
  if (request.body.length === 0) return linkedInError(400, undefined, "empty upload")
  image.uploaded = true
  return { status: 201, raw: "" }
}

const videoPart = (fake: LinkedInFake, request: FakeRequest): FakeReply => {
  const [, , , id, n] = request.path.split("/")
  const video = fake.videos.get(`urn:li:video:${id}`)
  const part = video?.parts[Number(n)]
  if (video === undefined || part === undefined || request.method !== "PUT") return linkedInError(404, "NOT_FOUND", "upload not found")
  // Test media are ASCII bytes: the body's length is the part's byte count.
  if (Buffer.byteLength(request.body, "utf8") !== part.last - part.first + 1) {
    return linkedInError(400, undefined, `part ${n} must be bytes ${part.first} to ${part.last}`)
  }
  part.etag = `/ambry-video/signedId/${id}/part/${n}`
  return { status: 200, raw: "", headers: { etag: part.etag } } as FakeReply
}

const refresh = (fake: LinkedInFake, request: FakeRequest): FakeReply => {
  const p = request.params
  if (p.client_id !== fake.clientId || p.client_secret !== fake.clientSecret) {
    return { status: 401, json: { error: "invalid_client", error_description: "Client authentication failed" } }
  }
  if (p.grant_type !== "refresh_token" || fake.refreshToken === undefined || p.refresh_token !== fake.refreshToken) {
    return { status: 400, json: { error: "invalid_request", error_description: "The provided authorization grant or refresh token is invalid, expired or revoked." } }
  }
  fake.accessToken = `AQV-linkedin-access-${fake.count("refresh") + 1}`
  return {
    status: 200,
    json: { access_token: fake.accessToken, expires_in: 5_184_000, refresh_token: fake.refreshToken, refresh_token_expires_in: 31_000_000, scope: fake.scopes.join(",") }
  }
}

/** Reserved little-text characters left unescaped (a `#` starting a hashtag is an element). */
export const unescapedReserved = (commentary: string): boolean => {
  const chars = Array.from(commentary)
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === "\\") {
      i += 1
      continue
    }
    if (c === "#" && /[\p{L}\p{N}_]/u.test(chars[i + 1] ?? "")) continue
    if ("|{}@[]()<>#*_~".includes(c)) return true
  }
  return false
}

const createPost = (fake: LinkedInFake, body: Record<string, unknown>, next: () => string): FakeReply => {
  const author = body.author
  if (typeof author !== "string") return linkedInError(400, undefined, "/author is required")
  if (!mayActFor(fake, author)) return accessDenied(`/posts.author ${author}`)
  const commentary = body.commentary
  if (typeof commentary !== "string") return linkedInError(400, undefined, "/commentary must be a string")
  if (commentary.length > 3000) {
    return linkedInError(422, undefined, `ERROR :: /commentary :: length of ${commentary.length} exceeds the maximum allowed of 3000`)
  }
  if (!["PUBLIC", "CONNECTIONS", "LOGGED_IN"].includes(String(body.visibility))) return linkedInError(400, undefined, "/visibility is invalid")
  if (body.lifecycleState !== "PUBLISHED" || typeof body.distribution !== "object") {
    return linkedInError(400, undefined, "/lifecycleState and /distribution are required")
  }
  const content = (body.content ?? {}) as Record<string, unknown>
  const single = (content.media as Record<string, unknown> | undefined)?.id
  const many = ((content.multiImage as Record<string, unknown> | undefined)?.images as Array<Record<string, unknown>> | undefined)?.map((i) => i.id)
  if (many !== undefined && (many.length < 2 || many.length > 20)) {
    return linkedInError(422, undefined, `ERROR :: /content/multiImage/images :: ${many.length} images: a MultiImage post takes 2 to 20`)
  }
  const thumbnail = (content.article as Record<string, unknown> | undefined)?.thumbnail
  for (const id of [...(single === undefined ? [] : [single]), ...(thumbnail === undefined ? [] : [thumbnail]), ...(many ?? [])]) {
    const asset = fake.images.get(String(id)) ?? fake.videos.get(String(id))
    if (asset === undefined || asset.owner !== author || assetStatus(fake, asset) !== "AVAILABLE") {
      return linkedInError(422, undefined, `ERROR :: /content :: ${String(id)} is not an available asset of ${author}`)
    }
  }
  const id = `urn:li:share:${next()}`
  fake.posts.push({ id, body, createdAt: Date.now() })
  return { status: 201, raw: "", headers: { "x-restli-id": id } } as FakeReply
}
