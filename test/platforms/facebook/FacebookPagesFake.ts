/**
 * A fake of the Facebook Pages Graph API (platforms.md, "Facebook Pages"): `feed` posts with a
 * message, a link or attached photos, `photos` (published or not), the reels flow (`video_reels`
 * start, the hosted-file upload on the rupload address with `Authorization: OAuth` and
 * `file_url`, `finish`, the video's phased `status`), Page videos (`POST /{page-id}/videos` with
 * `file_url` and `description`, listed by `GET /{page-id}/videos`), `permalink_url`, and a Page
 * token derived again from the user token.
 *
 * What Meta reads from a hosted video (its length, picture size and bytes) is what a test
 * declares in `files` (a file not declared is a 30-second 1080 × 1920 reel). The fake refuses
 * what the documentation says Meta refuses:
 * - a reel outside the reel specification (3 to 90 s, 9:16, at least 540 × 960:
 *   https://developers.facebook.com/docs/video-api/guides/reels-publishing, "Video
 *   specifications") fails in its processing phase, the way a reel Meta cannot process does;
 * - a Page video by address longer than 20 minutes or larger than 1 GB (non-resumable upload,
 *   https://developers.facebook.com/docs/graph-api/reference/page/videos) is refused at upload;
 * - more than 30 reels in 24 hours ("Rate Limit" on the reels page) are refused at `finish`.
 * Meta documents these limits, not the bodies of their refusals: the bodies are Graph `error`
 * objects in the shape the error-codes pages show, their codes recorded in docs/decisions.md.
 *
 * And Page post comments (platforms-connect.md, Facebook "Comments"), in the Graph wire format:
 * `GET /{post-id}/comments` with `filter` (`toplevel` by default, `stream` for every level),
 * `order` (`chronological` by default, or `reverse_chronological`), `summary=true` (`order`,
 * `total_count`, `can_comment`), 25 a page and cursor paging; `POST /{object-id}/comments`
 * (`message`; answers as the Page), `POST /{comment-id}` (`is_hidden`), `DELETE /{comment-id}`.
 * Without `pages_read_engagement` reads answer `(#10)`; without `pages_manage_engagement` writes
 * answer `(#200)`.
 */
import { Effect, type Scope } from "effect"
import { CommentStore, type FakeComment, metaTime, type NewComment, paginate, parseFields, pick } from "../meta/CommentFake.ts"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "../fakes/FakeServer.ts"
import { expiredToken, graphError, segments, tokenOf } from "../meta/GraphFake.ts"

/** The Page the fake serves. */
export const pageId = "104000000000001"

/** The Page's name (what its own comments are signed with). */
export const pageName = "Maya Bakes"

const version = "v23.0"

/** API-published reels a Page may publish in a 24-hour moving period (Reels Publishing API, "Rate Limit"). */
export const reelsPerDay = 30

/** A post the Page shows. */
export interface FakePagePost {
  readonly id: string
  readonly kind: "feed" | "photo" | "reel" | "video"
  readonly params: Readonly<Record<string, string>>
  /** When it was published, epoch milliseconds (listed to the second). */
  readonly createdAt: number
}

/** What Meta reads from a hosted video file. */
export interface FakeVideoFile {
  readonly durationSeconds: number
  readonly width: number
  readonly height: number
  readonly bytes: number
}

/** A file the test did not declare: a video that meets the reel specification. */
export const reelFile: FakeVideoFile = { durationSeconds: 30, width: 1080, height: 1920, bytes: 12_000_000 }

/** Whether Meta takes the file as a reel (reels-publishing, "Video specifications"). */
export const meetsReelSpec = (f: FakeVideoFile): boolean =>
  f.durationSeconds >= 3 &&
  f.durationSeconds <= 90 &&
  Math.abs(f.width / f.height - 9 / 16) <= 0.01 &&
  f.width >= 540 &&
  f.height >= 960

/** A Page video's upload (`POST /{page-id}/videos`): processed for a few status checks, then ready. */
export interface FakePageVideo {
  readonly videoId: string
  readonly fileUrl: string
  polls: number
}

/** A reel's upload session. */
export interface FakeReel {
  readonly videoId: string
  fileUrl: string | null
  finished: boolean
  /** Status checks since `finish`. */
  polls: number
}

/** The fake and the knobs a test turns. */
export interface FacebookPagesFake extends FakeServer {
  pageAccessToken: string
  /** The user token the Page token derives from; `null`: it no longer works either. */
  userAccessToken: string | null
  /** Status checks after `finish` before the reel's publishing phase completes. */
  pollsBeforePublished: number
  /** The reel's processing ends in error (bad video). */
  reelProcessingFails: boolean
  /**
   * Reels the Page published through the API in the last 24 hours before the test. The Reels API
   * allows 30 API-published reels in a 24-hour moving period, enforced when the reel is published
   * (https://developers.facebook.com/docs/video-api/guides/reels-publishing, "Rate Limit").
   */
  reelsUsedBefore: number
  /** What Meta reads from each hosted video, by its address (undeclared: {@link reelFile}). */
  readonly files: Map<string, FakeVideoFile>
  /**
   * What Meta reads from each hosted photo, by its address (undeclared: a JPEG of 1 MB). A photo
   * in another format than JPEG, BMP, PNG, GIF or TIFF, or over 10 MB, is refused (Page photo
   * specification, https://developers.facebook.com/docs/page-stories-api).
   */
  readonly images: Map<string, { readonly mime: string; readonly bytes: number }>
  /** Page videos uploaded by `POST /{page-id}/videos`. */
  readonly pageVideos: Array<FakePageVideo>
  /** Photos uploaded unpublished, to attach to a feed post. */
  readonly unpublishedPhotos: Array<string>
  readonly posts: Array<FakePagePost>
  readonly reels: Array<FakeReel>
  readonly comments: CommentStore
  /** The token carries `pages_read_engagement`. */
  commentRead: boolean
  /** The token carries `pages_manage_engagement`. */
  commentManage: boolean
  /** Someone comments under a Page post (or answers a comment with `parentId`). */
  readonly comment: (input: NewComment) => FakeComment
}

const routeOf = (request: FakeRequest): string => {
  if (request.path.startsWith(`/video-upload/${version}/`)) return "rupload"
  const parts = segments(request, version)
  if (parts === undefined) return "unknown"
  const [node, edge] = parts
  const fields = request.params.fields ?? ""
  if (node !== pageId && edge === "comments") return request.method === "GET" ? "comments" : "comment_create"
  if (node !== pageId && edge === undefined && request.method === "POST" && request.params.is_hidden !== undefined) {
    return "comment_hide"
  }
  if (edge === undefined && request.method === "DELETE") return "comment_delete"
  if (edge === undefined && request.method === "GET") {
    if (node === pageId && fields === "access_token") return "page_token"
    if (fields === "status") return "video_status"
    if (fields === "permalink_url") return "permalink"
    return "unknown"
  }
  if (node === pageId && edge === "published_posts" && request.method === "GET") return "published_posts"
  if (node === pageId && edge === "videos") return request.method === "GET" ? "page_videos" : "video_upload"
  if (node !== pageId || request.method !== "POST") return "unknown"
  if (edge === "feed") return "feed"
  if (edge === "photos") return "photos"
  if (edge === "video_reels") return request.params.upload_phase === "finish" ? "reel_finish" : "reel_start"
  return "unknown"
}

/** Starts the fake; its `url` is the Graph base address with the version. */
export const make = (): Effect.Effect<FacebookPagesFake, never, Scope.Scope> =>
  // Each run of the effect is a fresh platform: no state leaks between tests.
  Effect.suspend(() => {
  let fake: FacebookPagesFake
  const store = new CommentStore("5550000000")
  let nextId = 0
  const newId = () => {
    nextId += 1
    return `1220000000${String(nextId).padStart(6, "0")}`
  }

  const fileOf = (url: string) => fake.files.get(url) ?? reelFile

  const videoStatus = (reel: FakeReel) => {
    const uploaded = reel.fileUrl !== null
    // A file outside the reel specification cannot be processed as a reel.
    const offSpec = uploaded && !meetsReelSpec(fileOf(reel.fileUrl!))
    const fails = fake.reelProcessingFails || offSpec
    const processing = !uploaded ? "not_started" : fails ? "error" : reel.finished ? "complete" : "in_progress"
    const published = reel.finished && !fails && reel.polls > fake.pollsBeforePublished
    return {
      video_status: fails ? "error" : published ? "ready" : uploaded ? "processing" : "upload_complete",
      uploading_phase: { status: uploaded ? "complete" : "not_started" },
      processing_phase: {
        status: processing,
        // The phase's `errors` list (Video API status object); the code is an assumption.
        ...(offSpec
          ? { errors: [{ code: 1363040, message: "The video does not meet the reel specification: 3 to 90 seconds, 9:16, at least 540 x 960." }] }
          : {})
      },
      publishing_phase: {
        status: !reel.finished ? "not_started" : published ? "complete" : "in_progress",
        ...(published ? { publish_status: "published", publish_time: 1795000000 } : {})
      }
    }
  }

  const handle = (route: string, request: FakeRequest): FakeReply => {
    const p = request.params
    if (route === "unknown") return graphError(400, 100, 33, { message: "Unsupported request" })
    if (route === "page_token") {
      if (fake.userAccessToken === null || tokenOf(request) !== fake.userAccessToken) return expiredToken
      fake.pageAccessToken = `EAAP.derived-${newId()}`
      return { status: 200, json: { access_token: fake.pageAccessToken, id: pageId } }
    }
    if (tokenOf(request) !== fake.pageAccessToken) return expiredToken
    if (route.startsWith("comment")) return comments(route, request)
    switch (route) {
      case "published_posts": {
        // Newest first, `since` in Unix seconds, 25 a page by default, cursors as Graph pages them.
        const limit = Math.min(Math.max(Number(p.limit ?? 25) || 25, 1), 100)
        const since = p.since === undefined ? undefined : Number(p.since) * 1000
        const listed = [...fake.posts]
          .filter((post) => since === undefined || Math.floor(post.createdAt / 1000) * 1000 >= since)
          .sort((a, b) => b.createdAt - a.createdAt)
        const afterId = p.after === undefined ? undefined : Buffer.from(p.after, "base64url").toString("utf8")
        const from = afterId === undefined ? 0 : listed.findIndex((post) => post.id === afterId) + 1
        const page = listed.slice(from, from + limit)
        const cursor = (id: string) => Buffer.from(id, "utf8").toString("base64url")
        const created = (millis: number) => `${new Date(millis).toISOString().slice(0, 19)}+0000`
        return {
          status: 200,
          json: {
            data: page.map((post) => ({
              id: post.id,
              ...(post.params.message ?? post.params.caption ?? post.params.description
                ? { message: post.params.message ?? post.params.caption ?? post.params.description }
                : {}),
              created_time: created(post.createdAt)
            })),
            ...(page.length === 0
              ? {}
              : {
                  paging: {
                    cursors: { before: cursor(page[0]!.id), after: cursor(page.at(-1)!.id) },
                    ...(from + limit < listed.length
                      ? { next: `${fake.origin}${request.path}?after=${cursor(page.at(-1)!.id)}` }
                      : {})
                  }
                })
          }
        }
      }
      case "feed": {
        const attached = Object.keys(p).filter((k) => k.startsWith("attached_media["))
        for (const key of attached) {
          const fbid = (JSON.parse(p[key]!) as { media_fbid: string }).media_fbid
          if (!fake.unpublishedPhotos.includes(fbid)) return graphError(400, 100, undefined, { message: "Invalid media_fbid" })
        }
        if (p.message === undefined && p.link === undefined && attached.length === 0) {
          return graphError(400, 100, undefined, { message: "A message, link or media is required" })
        }
        const id = `${pageId}_${newId()}`
        fake.posts.push({ id, kind: "feed", params: { ...p }, createdAt: Date.now() })
        return { status: 200, json: { id } }
      }
      case "photos": {
        const image = fake.images.get(p.url ?? "") ?? { mime: "image/jpeg", bytes: 1_000_000 }
        if (!["image/jpeg", "image/png", "image/gif", "image/bmp", "image/tiff"].includes(image.mime) || image.bytes > 10 * 1024 * 1024) {
          // Graph's answer to an image file it will not take: (#324) (an assumption on the body).
          return graphError(400, 324, undefined, {
            message: "(#324) Missing or invalid image file",
            type: "OAuthException",
            userTitle: "Invalid image",
            userMessage: "Photos must be JPEG, BMP, PNG, GIF or TIFF files of at most 10 MB."
          })
        }
        const photoId = newId()
        if (p.published === "false") {
          fake.unpublishedPhotos.push(photoId)
          return { status: 200, json: { id: photoId } }
        }
        const postId = `${pageId}_${photoId}`
        fake.posts.push({ id: postId, kind: "photo", params: { ...p }, createdAt: Date.now() })
        return { status: 200, json: { id: photoId, post_id: postId } }
      }
      case "video_upload": {
        if (p.file_url === undefined && p.fbuploader_video_file_chunk === undefined) {
          return graphError(400, 100, undefined, { message: "(#100) A video file is required: file_url or an uploaded file handle", type: "OAuthException" })
        }
        const file = fileOf(p.file_url ?? "")
        if (file.durationSeconds > 20 * 60 || file.bytes > 1024 * 1024 * 1024) {
          // The limits of a non-resumable upload (the Page videos reference); Meta answers a file
          // it will not take by address with the Graph video upload error 6000 (an assumption).
          return graphError(400, 6000, 1363023, {
            message: "There was a problem uploading your video file. Please try again with another file.",
            type: "OAuthException",
            userTitle: "Video Too Large",
            userMessage: "Videos uploaded by address can be up to 1 GB and 20 minutes long."
          })
        }
        const video: FakePageVideo = { videoId: newId(), fileUrl: p.file_url ?? "", polls: 0 }
        fake.pageVideos.push(video)
        fake.posts.push({ id: video.videoId, kind: "video", params: { ...p }, createdAt: Date.now() })
        return { status: 200, json: { id: video.videoId } }
      }
      case "page_videos": {
        const listed = fake.posts
          .filter((post) => post.kind === "video" || post.kind === "reel")
          .sort((a, b) => b.createdAt - a.createdAt)
          .slice(0, Math.min(Number(p.limit ?? 25) || 25, 100))
        const created = (millis: number) => `${new Date(millis).toISOString().slice(0, 19)}+0000`
        return {
          status: 200,
          json: {
            data: listed.map((post) => ({
              id: post.id,
              ...(post.params.description === undefined ? {} : { description: post.params.description }),
              created_time: created(post.createdAt)
            }))
          }
        }
      }
      case "reel_start": {
        if (p.upload_phase !== "start") return graphError(400, 100, undefined, { message: "upload_phase is required" })
        const reel: FakeReel = { videoId: newId(), fileUrl: null, finished: false, polls: 0 }
        fake.reels.push(reel)
        return { status: 200, json: { video_id: reel.videoId, upload_url: `${fake.origin}/video-upload/${version}/${reel.videoId}` } }
      }
      case "rupload": {
        const reel = fake.reels.find((r) => r.videoId === request.path.split("/").at(-1))
        const fileUrl = request.headers.file_url
        if (reel === undefined || typeof fileUrl !== "string") {
          return { status: 400, json: { debug_info: { retriable: false, type: "ProcessingFailedError", message: "Request processing failed" } } }
        }
        reel.fileUrl = fileUrl
        return { status: 200, json: { success: true } }
      }
      case "reel_finish": {
        const reel = fake.reels.find((r) => r.videoId === p.video_id)
        if (reel === undefined || reel.fileUrl === null) return graphError(400, 100, undefined, { message: "Upload not complete" })
        if (reel.finished) return graphError(400, 100, undefined, { message: "The video was already published" })
        const dayAgo = Date.now() - 24 * 60 * 60 * 1000
        const reelsToday = fake.reelsUsedBefore + fake.posts.filter((post) => post.kind === "reel" && post.createdAt > dayAgo).length
        if (reelsToday >= reelsPerDay) {
          // Meta documents the limit, not the body of its refusal: the fake answers the Graph
          // publishing-limit code 9 that Instagram's error-codes page documents (9/2207042 there),
          // without Instagram's subcode. An assumption, recorded in docs/decisions.md.
          return graphError(400, 9, undefined, {
            message: "(#9) The Page has reached the limit of reels it can publish through the API in 24 hours.",
            type: "OAuthException",
            userTitle: "Reels limit reached",
            userMessage: "This Page has published the most reels allowed through the API in 24 hours. Try again later."
          })
        }
        reel.finished = true
        fake.posts.push({ id: reel.videoId, kind: "reel", params: { ...p }, createdAt: Date.now() })
        return { status: 200, json: { success: true } }
      }
      case "video_status": {
        const id = request.path.split("/").at(-1)
        const reel = fake.reels.find((r) => r.videoId === id)
        const pageVideo = fake.pageVideos.find((v) => v.videoId === id)
        if (pageVideo !== undefined) {
          pageVideo.polls += 1
          const ready = pageVideo.polls > fake.pollsBeforePublished
          return {
            status: 200,
            json: {
              id,
              status: {
                video_status: ready ? "ready" : "processing",
                uploading_phase: { status: "complete" },
                processing_phase: { status: ready ? "complete" : "in_progress" },
                publishing_phase: { status: ready ? "complete" : "not_started" }
              }
            }
          }
        }
        if (reel === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        if (reel.finished) reel.polls += 1
        return { status: 200, json: { status: videoStatus(reel), id: reel.videoId } }
      }
      default: {
        const id = request.path.split("/").at(-1)!
        const post = fake.posts.find((x) => x.id === id)
        if (post === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        const permalink_url =
          post.kind === "reel"
            ? `/reel/${id}/`
            : post.kind === "video"
              ? `/${pageId}/videos/${id}/`
              : `https://www.facebook.com/${pageId}/posts/${id.split("_")[1]}/`
        return { status: 200, json: { permalink_url, id } }
      }
    }
  }

  const noObject = (id: string) =>
    graphError(400, 100, 33, { message: `Unsupported get request. Object with ID '${id}' does not exist` })

  const wire = (c: FakeComment, fields: Map<string, string | undefined>): Record<string, unknown> => {
    const parent = store.find(c.parentId ?? undefined)
    return pick(
      {
        id: c.id,
        message: c.text,
        created_time: metaTime(c.createdAt),
        from: { name: c.username, id: c.authorId },
        parent: parent === undefined ? undefined : { id: parent.id },
        like_count: c.likeCount,
        is_hidden: c.hidden,
        permalink_url: `https://www.facebook.com/${pageId}/posts/${c.rootId.split("_")[1]}/?comment_id=${c.id.split("_")[1]}`
      },
      fields
    )
  }

  const comments = (route: string, request: FakeRequest): FakeReply => {
    const p = request.params
    const node = request.path.split("/")[2] ?? ""
    const post = fake.posts.find((x) => x.id === node)
    const target = store.find(node)
    if (route === "comments") {
      if (post === undefined && target === undefined) return noObject(node)
      if (!fake.commentRead) {
        return graphError(403, 10, undefined, { message: "(#10) This endpoint requires the 'pages_read_engagement' permission" })
      }
      const stream = p.filter === "stream" && post !== undefined
      // A post's comments: every level (`stream`) or the top level; a comment's: its answers.
      let items = store.chronological((c) =>
        post === undefined ? c.parentId === node : c.rootId === node && (stream || c.parentId === null)
      )
      if (p.order === "reverse_chronological") items = items.reverse()
      const paged = paginate(items, request, fake.origin)
      if (paged === undefined) return graphError(400, 100, undefined, { message: "Invalid cursor" })
      const fields = parseFields(p.fields ?? "id,message,created_time,from")
      return {
        status: 200,
        json: {
          data: paged.page.map((c) => wire(c, fields)),
          ...(paged.paging === undefined ? {} : { paging: paged.paging }),
          ...(p.summary === "true"
            ? { summary: { order: p.order === "reverse_chronological" ? "reverse_chronological" : "chronological", total_count: items.length, can_comment: true } }
            : {})
        }
      }
    }
    if (post === undefined && target === undefined) return noObject(node)
    if (!fake.commentManage) {
      return graphError(403, 200, undefined, { message: "(#200) Requires pages_manage_engagement permission to manage the object" })
    }
    switch (route) {
      case "comment_create": {
        if (p.message === undefined || p.message === "") {
          return graphError(400, 100, undefined, { message: "(#100) Missing message or attachment" })
        }
        const rootId = post?.id ?? target!.rootId
        const reply = store.add({
          id: `${rootId.split("_")[1]}_${store.newId()}`,
          on: rootId,
          parentId: target?.id ?? null,
          text: p.message,
          username: pageName,
          authorId: pageId,
          byOwner: true
        })
        return { status: 200, json: { id: reply.id } }
      }
      case "comment_hide":
        if (target === undefined) return noObject(node)
        target.hidden = p.is_hidden === "true"
        return { status: 200, json: { success: true } }
      case "comment_delete":
        if (target === undefined) return noObject(node)
        store.remove(node)
        return { status: 200, json: { success: true } }
      default:
        return graphError(400, 100, 33, { message: "Unsupported request" })
    }
  }

  return Effect.map(start({ route: routeOf, handle: (route, request) => handle(route, request) }), (server) => {
    fake = Object.assign(server, {
      url: `${server.origin}/${version}`,
      pageAccessToken: "EAAP.initial",
      userAccessToken: "EAAU.user" as string | null,
      pollsBeforePublished: 1,
      reelProcessingFails: false,
      reelsUsedBefore: 0,
      unpublishedPhotos: [],
      files: new Map(),
      images: new Map(),
      pageVideos: [],
      posts: [],
      reels: [],
      comments: store,
      commentRead: true,
      commentManage: true,
      comment: (input: NewComment) => {
        const rootId = input.on
        return store.add({ ...input, id: `${rootId.split("_")[1] ?? rootId}_${store.newId()}` })
      }
    })
    return fake
  })
  })

/** Publishes the Page shows (the count a test asserts exactly-once against). */
export const publishCount = (fake: FacebookPagesFake): number => fake.posts.length
