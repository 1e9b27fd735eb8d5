/**
 * A fake of Instagram's content publishing (platforms.md, "Instagram Graph API, Reels"): media
 * containers on `/{ig-user-id}/media`, `status_code` polling, `media_publish`,
 * `content_publishing_limit` (100 per 24 h), permalinks, and `ig_refresh_token`. Container
 * creation refuses what Instagram refuses, with its error bodies: a caption over 2,200 characters,
 * 30 hashtags or 20 @mentions (36004/2207010), an image address serving something other than a
 * JPEG (36001/2207005) or a feed image outside 4:5 to 1.91:1 (36003/2207009); and a wrong
 * `appsecret_proof` (code 100), or none when the app requires it.
 *
 * An image address on this machine (the server under test's signed `/media-files` address) is
 * really downloaded, as Instagram downloads `image_url`: the creation is answered at once, the
 * container reads IN_PROGRESS until the bytes are in, then ERROR with the subcode in its `status`
 * text when they are not a JPEG (2207005) or could not be fetched (2207052), FINISHED otherwise.
 * The bytes fetched are kept in `downloads` for the test to inspect.
 *
 * And comment moderation (platforms-connect.md, Instagram "Comments"), in Instagram's wire format:
 * `GET /{ig-media-id}?fields=comments_count` (replies counted), `GET /{ig-media-id}/comments`
 * (top-level comments, newest first by default, no `since` and no ordering parameter, 25 a page,
 * cursor paging; `replies{...}` expands each comment's first 25 replies with their own paging),
 * `GET /{ig-comment-id}/replies` (oldest first), `POST /{ig-comment-id}/replies` (`message`; a
 * reply to a reply lands under the top-level comment, as on Instagram), `POST /{ig-comment-id}`
 * (`hide`), `DELETE /{ig-comment-id}` (with its replies). Without the comment permission every
 * comment call answers `(#10) Application does not have permission for this action`.
 */
import { createHmac } from "node:crypto"
import { Effect, type Scope } from "effect"
import { type CommentStore as Store, CommentStore, type FakeComment, metaTime, type NewComment, paginate, parseFields, pick } from "../meta/CommentFake.ts"
import * as ContainerFake from "../meta/ContainerFake.ts"
import type { FakeReply, FakeRequest } from "../fakes/FakeServer.ts"
import { graphError } from "../meta/GraphFake.ts"

/** The ig-user-id the fake serves. */
export const igUserId = "17841400000000001"

/** The account's username. */
export const username = "maya.bakes"

/** The Instagram fake: publishing and comments. */
export interface InstagramFake extends ContainerFake.ContainerFake {
  readonly comments: Store
  /** The token carries `instagram_business_manage_comments`. */
  commentScope: boolean
  /** The order top-level comments are listed in (Instagram does not document one). */
  commentOrder: "newest_first" | "oldest_first"
  /** Someone comments under a media (or answers a comment with `parentId`). */
  readonly comment: (input: NewComment) => FakeComment
  /**
   * What each image address serves, as Instagram downloads it when the container is created: an
   * address listed here whose bytes are not a JPEG is refused (36001/2207005); an unlisted one is
   * taken as a JPEG.
   */
  readonly images: Map<string, Uint8Array>
  /** What each image address on this machine served when the fake downloaded it (`null`: it failed). */
  readonly downloads: Map<string, Uint8Array | null>
  /**
   * The app secret `appsecret_proof` is checked against when a call carries one (a wrong proof is
   * refused with code 100); `undefined`: any proof is accepted.
   */
  appSecret: string | undefined
  /** The app requires `appsecret_proof` on every call ("Require App Secret"). */
  requireProof: boolean
}

// Instagram's error-codes page (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes):
// 36001/2207005 image format not supported, 36003/2207009 aspect ratio, 36004/2207010 caption
// (more than 2,200 characters, 30 hashtags or 20 @ tags). The bodies follow the page's sample
// response (message, type OAuthException, code, error_subcode, is_transient, error_user_title,
// error_user_msg, fbtrace_id).
const imageFormat = graphError(400, 36001, 2207005, {
  message: "The image format is not supported.",
  type: "OAuthException",
  userTitle: "Unsupported image format",
  userMessage: "The image format is not supported. Supported formats are: JPEG"
})
const aspectRatio = graphError(400, 36003, 2207009, {
  message: "The aspect ratio is not supported.",
  type: "OAuthException",
  userTitle: "Cannot publish image",
  userMessage: "The submitted image's aspect ratio is not supported. Please submit an image with an aspect ratio between 4:5 and 1.91:1."
})
const captionRefused = graphError(400, 36004, 2207010, {
  message: "The caption is invalid.",
  type: "OAuthException",
  userTitle: "Invalid caption",
  userMessage: "The caption may contain at most 2200 characters, 30 hashtags and 20 @ tags."
})
// Meta's "Securing Requests" page (https://developers.facebook.com/docs/graph-api/securing-requests):
// a wrong proof, or none when the app requires one, is refused as an invalid parameter (code 100).
const badProof = graphError(400, 100, undefined, { message: "Invalid appsecret_proof provided in the API argument" })
const proofRequired = graphError(400, 100, undefined, { message: "API calls from the server require an appsecret_proof argument" })

/** Whether bytes are a JPEG (they start with the SOI marker and a segment). */
const isJpeg = (bytes: Uint8Array) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff

/** A PNG's or a JPEG's width and height, when the bytes say. */
const sizeOf = (bytes: Uint8Array): { width: number; height: number } | undefined => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50) return { width: view.getUint32(16), height: view.getUint32(20) }
  if (!isJpeg(bytes)) return undefined
  let at = 2
  while (at + 9 < bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!
    const length = view.getUint16(at + 2)
    if (marker >= 0xc0 && marker <= 0xc3) return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) }
    at += 2 + length
  }
  return undefined
}

// How the fake counts tags, as the IG User Media reference describes the caption: `#tag` and `@user`.
const countOf = (caption: string, pattern: RegExp) => caption.match(pattern)?.length ?? 0
const hashtagPattern = /(?<![\p{L}\p{N}_&])#[\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*/gu
const mentionPattern = /(?<![\p{L}\p{N}_.])@[A-Za-z0-9._]*[A-Za-z0-9_]/gu

const dialect: ContainerFake.ContainerDialect = {
  version: "v23.0",
  userId: igUserId,
  mediaEdge: "media",
  publishEdge: "media_publish",
  limitEdge: "content_publishing_limit",
  statusField: "status_code",
  errorField: "status",
  captionField: "caption",
  refreshGrant: "ig_refresh_token",
  quotaTotal: 100,
  permalink: (id) => `https://www.instagram.com/p/C${id.slice(-8)}x/`,
  // Instagram's error-codes page: 9007/2207027 "The media is not ready for publishing, please wait
  // for a moment" (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes).
  notReady: graphError(400, 9007, 2207027, {
    message: "Media ID is not available",
    type: "OAuthException",
    userTitle: "Media not ready for publishing",
    userMessage: "The media is not ready for publishing, please wait for a moment"
  })
}

/** Whether an image address is on this machine: the fake downloads those (others are taken as JPEG). */
const isLocal = (address: string | undefined): address is string => {
  if (address === undefined) return false
  try {
    const host = new URL(address).hostname
    return host === "127.0.0.1" || host === "localhost" || host === "[::1]"
  } catch {
    return false
  }
}

/**
 * The container `status` text of an image Instagram could not use, with the subcode the adapter
 * reads: 2207052 "Media download has failed. The media URI doesn't meet our requirements." and
 * 2207005 "The image format is not supported. Supported formats are: JPEG" (error-codes page).
 */
const downloadFailedText = "Error: Media download has failed. The media URI doesn't meet our requirements. (2207052)"
const formatText = "Error: The image format is not supported. Supported formats are: JPEG (2207005)"

const noPermission = graphError(403, 10, undefined, { message: "(#10) Application does not have permission for this action" })
const noObject = (id: string) =>
  graphError(400, 100, 33, { message: `Unsupported get request. Object with ID '${id}' does not exist` })

/** Starts the fake; its `url` is the Graph base address with the version. */
export const make = (): Effect.Effect<InstagramFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    const store = new CommentStore("1791000000")
    let fake: InstagramFake

    const isMedia = (id: string) => fake.media.some((m) => m.id === id)

    const wire = (c: FakeComment, fields: Map<string, string | undefined>, request: FakeRequest): Record<string, unknown> => {
      const all: Record<string, unknown> = {
        id: c.id,
        text: c.text,
        timestamp: metaTime(c.createdAt),
        username: c.username,
        from: { id: c.authorId, username: c.username },
        like_count: c.likeCount,
        hidden: c.hidden,
        parent_id: c.parentId ?? undefined,
        media: { id: c.rootId }
      }
      const nested = fields.get("replies")
      if (fields.has("replies") && c.parentId === null) {
        const replies = store.chronological((r) => r.parentId === c.id)
        const paged = paginate(replies, { ...request, params: { limit: "25" }, path: `/${dialect.version}/${c.id}/replies` }, fake.origin)!
        const inner = parseFields(nested ?? "id")
        all.replies = {
          data: paged.page.map((r) => wire(r, inner, request)),
          ...(paged.paging === undefined ? {} : { paging: paged.paging })
        }
      }
      return pick(all, fields)
    }

    const list = (items: ReadonlyArray<FakeComment>, request: FakeRequest): FakeReply => {
      const paged = paginate(items, request, fake.origin)
      if (paged === undefined) return graphError(400, 100, undefined, { message: "Invalid cursor" })
      const fields = parseFields(request.params.fields ?? "id,text,timestamp")
      return {
        status: 200,
        json: { data: paged.page.map((c) => wire(c, fields, request)), ...(paged.paging === undefined ? {} : { paging: paged.paging }) }
      }
    }

    /** What Instagram refuses when a container is created, as it answers; `undefined` when it accepts. */
    const refusal = (request: FakeRequest): FakeReply | undefined => {
      const p = request.params
      const caption = p.caption ?? ""
      if ([...caption].length > 2200 || countOf(caption, hashtagPattern) > 30 || countOf(caption, mentionPattern) > 20) {
        return captionRefused
      }
      const bytes = p.image_url === undefined ? undefined : fake.images.get(p.image_url)
      if (bytes === undefined) return undefined
      if (!isJpeg(bytes)) return imageFormat
      const size = sizeOf(bytes)
      if (size === undefined || p.media_type === "STORIES") return undefined
      const ratio = Math.round((size.width / size.height) * 100) / 100
      return ratio < 0.8 || ratio > 1.91 ? aspectRatio : undefined
    }

    let refused: FakeReply | undefined
    const downloads = new Map<string, Uint8Array | null>()
    const pending = new Set<string>()

    /** Starts downloading a local image address once, as Instagram fetches `image_url`. */
    const download = (address: string) => {
      if (downloads.has(address) || pending.has(address)) return
      pending.add(address)
      void fetch(address)
        .then(async (response) => (response.ok ? new Uint8Array(await response.arrayBuffer()) : null))
        .catch(() => null)
        .then((bytes) => {
          downloads.set(address, bytes)
          pending.delete(address)
        })
    }

    /** Why a container's downloaded image cannot be published, as its `status` text. */
    const downloadError = (container: ContainerFake.FakeContainer): string | undefined => {
      const address = container.params.image_url
      if (address === undefined || !downloads.has(address)) return undefined
      const bytes = downloads.get(address)
      if (bytes === null || bytes === undefined) return downloadFailedText
      return isJpeg(bytes) ? undefined : formatText
    }
    const localDialect: ContainerFake.ContainerDialect = { ...dialect, processingError: downloadError }

    const extension = (): ContainerFake.ContainerExtension => ({
      route: (request, [node, edge]) => {
        const proof = request.params.appsecret_proof
        const token = request.params.access_token
        if (proof === undefined && fake.requireProof) return "proof_required"
        if (proof !== undefined && fake.appSecret !== undefined && token !== undefined) {
          if (proof !== createHmac("sha256", fake.appSecret).update(token).digest("hex")) return "bad_proof"
        }
        if (node === igUserId && edge === "media" && request.method === "POST") {
          const address = request.params.image_url
          if (isLocal(address) && !fake.images.has(address)) download(address)
          refused = refusal(request)
          return refused === undefined ? undefined : "create_refused"
        }
        if (node === undefined || node === igUserId) return undefined
        const fields = request.params.fields ?? ""
        // A container whose image is still downloading is in progress, however often it is asked.
        if (request.method === "GET" && edge === undefined && fields.includes("status_code")) {
          const container = fake.containers.find((c) => c.id === node)
          if (container?.params.image_url !== undefined && pending.has(container.params.image_url)) return "downloading"
        }
        if (request.method === "GET" && edge === undefined && fields.includes("comments_count")) return "comments_count"
        if (request.method === "GET" && edge === "comments") return "comments"
        if (request.method === "GET" && edge === "replies") return "replies"
        if (request.method === "POST" && edge === "replies") return "reply"
        if (request.method === "POST" && edge === undefined && request.params.hide !== undefined) return "hide"
        if (request.method === "DELETE" && edge === undefined) return "delete_comment"
        return undefined
      },
      handle: (route, request) => {
        const node = request.path.split("/")[2] ?? ""
        switch (route) {
          case "proof_required":
            return proofRequired
          case "bad_proof":
            return badProof
          case "create_refused":
            return refused
          case "downloading":
            return { status: 200, json: { id: node, status_code: "IN_PROGRESS" } }

          case "comments_count": {
            if (!isMedia(node)) return noObject(node)
            if (!fake.commentScope) return noPermission
            return { status: 200, json: { comments_count: store.under(node).length, id: node } }
          }
          case "comments": {
            if (!isMedia(node)) return noObject(node)
            if (!fake.commentScope) return noPermission
            const top = store.chronological((c) => c.rootId === node && c.parentId === null)
            return list(fake.commentOrder === "newest_first" ? top.reverse() : top, request)
          }
          case "replies": {
            if (store.find(node) === undefined) return noObject(node)
            if (!fake.commentScope) return noPermission
            return list(store.chronological((c) => c.parentId === node), request)
          }
          case "reply": {
            const parent = store.find(node)
            if (parent === undefined) return noObject(node)
            if (!fake.commentScope) return noPermission
            const message = request.params.message
            if (message === undefined || message === "") {
              return graphError(400, 100, undefined, { message: "(#100) The parameter message is required" })
            }
            const reply = store.add({
              on: parent.rootId,
              parentId: parent.parentId ?? parent.id,
              text: message,
              username,
              authorId: igUserId,
              byOwner: true
            })
            return { status: 200, json: { id: reply.id } }
          }
          case "hide": {
            const comment = store.find(node)
            if (comment === undefined) return noObject(node)
            if (!fake.commentScope) return noPermission
            comment.hidden = request.params.hide === "true"
            return { status: 200, json: { success: true } }
          }
          case "delete_comment": {
            if (store.find(node) === undefined) return noObject(node)
            if (!fake.commentScope) return noPermission
            store.remove(node)
            return { status: 200, json: { success: true } }
          }
          default:
            return undefined
        }
      }
    })

    return Effect.map(ContainerFake.make(localDialect, extension), (server) => {
      fake = Object.assign(server, {
        comments: store,
        commentScope: true,
        commentOrder: "newest_first" as const,
        comment: (input: NewComment) => store.add(input),
        images: new Map<string, Uint8Array>(),
        downloads,
        appSecret: undefined,
        requireProof: false
      })
      return fake
    })
  })
