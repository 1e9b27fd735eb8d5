/**
 * A fake of the Threads API (platforms.md, "Threads"): containers on `/{threads-user-id}/threads`,
 * `status` and `error_message` polling, `threads_publish`, `threads_publishing_limit` (250 per
 * 24 h), permalinks, and `th_refresh_token`.
 *
 * And reply management (platforms-connect.md, Threads "Replies"), in Threads' wire format:
 * `GET /{media-id}/conversation` (every depth, flattened) and `/replies` (top level), newest first
 * unless `reverse=false`, cursor paging (`before`/`after`); a reply published like a post
 * (`POST /me/threads` with `reply_to_id`, then `threads_publish`); `GET /{reply-id}` with
 * `replied_to` and `root_post`; `POST /{reply-id}/manage_reply` (`hide`, replies made directly to
 * the post only); `DELETE /{media-id}`. Without `threads_read_replies`/`threads_manage_replies`
 * the reply calls answer `(#10) Application does not have permission for this action`.
 *
 * And Threads' publishing rules (packages/platforms/src/threads/Rules.ts cites each page), counted
 * here on their own so that a test proves Postwire counts as Threads does:
 * - a `text` over 500 characters (an emoji counting its UTF-8 bytes, threads/posts#limitations)
 *   is refused at container creation with code 100 (the documentation shows no body; integrators
 *   report code 100, e.g. github.com/gesteves/denali pull 1285);
 * - more than 5 unique links is refused at container creation with
 *   `THREADS_API__LINK_LIMIT_EXCEEDED` (threads/create-posts/text-attachments#limitations: the
 *   documentation names the code, not the envelope, shown here as Graph's code 100 error);
 * - a carousel of fewer than 2 or more than 20 children is refused at creation (threads/posts#carousel-posts);
 * - a video over 300 seconds ends its processing as ERROR `INVALID_DURATION`, an image or video
 *   beyond its aspect ratio (10:1 either way; a video 0.01:1) as `INVALID_ASPEC_RATIO` (Threads'
 *   spelling), as the container status reference lists them (threads/troubleshooting). What a
 *   media URL holds is what the test tells `mediaFacts`: the fake cannot read the bytes.
 */
import { Effect, type Scope } from "effect"
import { type CommentStore as Store, CommentStore, type FakeComment, metaTime, type NewComment, paginate, parseFields, pick } from "../meta/CommentFake.ts"
import * as ContainerFake from "../meta/ContainerFake.ts"
import type { FakeReply, FakeRequest } from "../fakes/FakeServer.ts"
import { graphError } from "../meta/GraphFake.ts"

/** The threads-user-id the fake serves. */
export const threadsUserId = "25000000000000001"

/** The account's username. */
export const username = "maya.bakes"

/** The Threads fake: publishing and replies. */
export interface ThreadsFake extends ContainerFake.ContainerFake {
  readonly replies: Store
  /** The token carries `threads_read_replies` and `threads_manage_replies`. */
  commentScope: boolean
  /** Someone replies to a post (or to a reply with `parentId`). */
  readonly reply: (input: NewComment) => FakeComment
  /** What the file at a media URL is, as Threads would find when it fetches it. */
  readonly mediaFacts: Map<string, MediaFacts>
}

/** What Threads finds in a media file. */
export interface MediaFacts {
  readonly width?: number
  readonly height?: number
  readonly durationSeconds?: number
}

/** Threads' length of a text: one per code point, an emoji its UTF-8 bytes. */
export const threadsLength = (text: string): number => {
  let length = 0
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)) {
    const pictographic = [...segment].some((c) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(c) || c === "\u20E3")
    length += pictographic ? Buffer.byteLength(segment, "utf8") : [...segment].length
  }
  return length
}

/** The unique links of a text: words that are a URL, a `www.` host or a host name, without trailing punctuation. */
export const uniqueLinks = (text: string): number => {
  const links = new Set<string>()
  for (const word of text.split(/\s+/)) {
    const bare = word.replace(/[.,!?;:)'"]+$/, "")
    if (bare.includes("@")) continue
    if (!/^(?:https?:\/\/)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?:\/\S*)?$/i.test(bare)) continue
    links.add(bare.replace(/^https?:\/\//i, "").replace(/\/+$/, "").replace(/^[^/]+/, (host) => host.toLowerCase()))
  }
  return links.size
}

const invalidParameter = (userTitle: string, userMessage: string, message = "Invalid parameter") =>
  graphError(400, 100, undefined, { message, type: "OAuthException", userTitle, userMessage })

const baseDialect: ContainerFake.ContainerDialect = {
  version: "v1.0",
  userId: threadsUserId,
  mediaEdge: "threads",
  publishEdge: "threads_publish",
  limitEdge: "threads_publishing_limit",
  statusField: "status",
  errorField: "error_message",
  captionField: "text",
  refreshGrant: "th_refresh_token",
  quotaTotal: 250,
  permalink: (id) => `https://www.threads.net/@maya.bakes/post/D${id.slice(-8)}y`,
  // Threads documents no error for publishing a container still IN_PROGRESS (its docs say to wait
  // about 30 s and read the container's status: threads/retrieve-and-manage-replies/create-replies,
  // threads/troubleshooting). Integrators report this answer, not Instagram's 9007.
  notReady: graphError(400, 24, 4279009, {
    message: "The requested resource does not exist",
    type: "OAuthException",
    userTitle: "Media Not Found",
    userMessage: "The media could not be found."
  })
}

const noPermission = graphError(403, 10, undefined, { message: "Application does not have permission for this action" })
const noObject = (id: string) =>
  graphError(400, 100, 33, { message: `Unsupported get request. Object with ID '${id}' does not exist` })

/** Starts the fake; its `url` is the Graph base address with the version. */
export const make = (): Effect.Effect<ThreadsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    const store = new CommentStore("1792000000")
    let fake: ThreadsFake

    const isMedia = (id: string) => fake.media.some((m) => m.id === id)

    const wire = (c: FakeComment, fields: Map<string, string | undefined>): Record<string, unknown> =>
      pick(
        {
          id: c.id,
          text: c.text,
          username: c.username,
          timestamp: metaTime(c.createdAt),
          permalink: `https://www.threads.net/@${c.username}/post/R${c.id.slice(-8)}`,
          media_type: "TEXT_POST",
          has_replies: store.comments.some((r) => r.parentId === c.id),
          root_post: { id: c.rootId },
          replied_to: { id: c.parentId ?? c.rootId },
          is_reply: true,
          is_reply_owned_by_me: c.byOwner,
          hide_status: c.hidden ? "HIDDEN" : "NOT_HUSHED"
        },
        fields
      )

    const list = (items: Array<FakeComment>, request: FakeRequest): FakeReply => {
      if (request.params.after !== undefined && request.params.before !== undefined) {
        return graphError(400, 100, undefined, { message: "Only one of before and after may be given" })
      }
      const ordered = request.params.reverse === "false" ? items : items.reverse()
      const paged = paginate(ordered, request, fake.origin)
      if (paged === undefined) return graphError(400, 100, undefined, { message: "Invalid cursor" })
      const fields = parseFields(request.params.fields ?? "id")
      return {
        status: 200,
        json: { data: paged.page.map((c) => wire(c, fields)), ...(paged.paging === undefined ? {} : { paging: paged.paging }) }
      }
    }

    const rootOf = (id: string): string | undefined => (isMedia(id) ? id : store.find(id)?.rootId)

    const extension = (): ContainerFake.ContainerExtension => ({
      route: (request, [node, edge]) => {
        if (node === undefined) return undefined
        if (node === "me" && edge === "threads" && request.method === "POST") return "create"
        if (node === threadsUserId) return undefined
        if (request.method === "GET" && edge === "conversation") return "conversation"
        if (request.method === "GET" && edge === "replies") return "replies"
        if (request.method === "GET" && edge === undefined && store.find(node) !== undefined) return "reply_info"
        if (request.method === "POST" && edge === "manage_reply") return "manage_reply"
        if (request.method === "DELETE" && edge === undefined) return "delete_reply"
        return undefined
      },
      handle: (route, request) => {
        const node = request.path.split("/")[2] ?? ""
        switch (route) {
          case "create": {
            const text = request.params.text ?? ""
            if (threadsLength(text) > 500) {
              return invalidParameter("Text Too Long", "The text of a post is limited to 500 characters.", "Param text must be at most 500 characters long.")
            }
            if (uniqueLinks(text) > 5) {
              return invalidParameter("THREADS_API__LINK_LIMIT_EXCEEDED", "A post can include up to 5 links.", "THREADS_API__LINK_LIMIT_EXCEEDED")
            }
            if (request.params.media_type === "CAROUSEL") {
              const children = (request.params.children ?? "").split(",").filter((c) => c !== "")
              if (children.length < 2 || children.length > 20) {
                return invalidParameter("Invalid Number of Carousel Items", "A carousel takes 2 to 20 images or videos.")
              }
            }
            const replyTo = request.params.reply_to_id
            if (replyTo === undefined) return undefined
            if (!fake.commentScope) return noPermission
            if (rootOf(replyTo) === undefined) return noObject(replyTo)
            // The container itself is created like any other.
            return undefined
          }
          case "conversation":
          case "replies": {
            if (!isMedia(node)) return noObject(node)
            if (!fake.commentScope) return noPermission
            return list(
              store.chronological((c) => c.rootId === node && (route === "conversation" || c.parentId === null)),
              request
            )
          }
          case "reply_info": {
            if (!fake.commentScope) return noPermission
            return { status: 200, json: wire(store.find(node)!, parseFields(request.params.fields ?? "id")) }
          }
          case "manage_reply": {
            const reply = store.find(node)
            if (reply === undefined) return noObject(node)
            if (!fake.commentScope) return noPermission
            if (reply.parentId !== null) {
              return graphError(400, 100, undefined, { message: "Only replies to your own posts can be hidden" })
            }
            reply.hidden = request.params.hide === "true"
            return { status: 200, json: { success: true } }
          }
          case "delete_reply": {
            if (store.find(node) === undefined) return noObject(node)
            if (!fake.commentScope) return noPermission
            store.remove(node)
            return { status: 200, json: { success: true } }
          }
          default:
            return undefined
        }
      },
      onPublish: (container, id, publishedAt) => {
        const replyTo = container.params.reply_to_id
        if (replyTo === undefined) return false
        const root = rootOf(replyTo)!
        store.add({
          id,
          on: root,
          parentId: replyTo === root ? null : replyTo,
          text: container.params.text ?? "",
          username,
          authorId: threadsUserId,
          byOwner: true,
          at: publishedAt
        })
        return true
      }
    })

    const mediaFacts = new Map<string, MediaFacts>()
    const dialect: ContainerFake.ContainerDialect = {
      ...baseDialect,
      processingError: (container) => {
        const url = container.params.video_url ?? container.params.image_url
        const facts = url === undefined ? undefined : mediaFacts.get(url)
        if (facts === undefined) return undefined
        const video = container.params.video_url !== undefined
        if (video && (facts.durationSeconds ?? 0) > 300) return "INVALID_DURATION"
        if (facts.width !== undefined && facts.height !== undefined) {
          const ratio = facts.width / facts.height
          if (ratio > 10 || ratio < (video ? 0.01 : 0.1)) return "INVALID_ASPEC_RATIO"
        }
        return undefined
      }
    }
    return Effect.map(ContainerFake.make(dialect, extension), (server) => {
      fake = Object.assign(server, {
        replies: store,
        commentScope: true,
        reply: (input: NewComment) => store.add(input),
        mediaFacts
      })
      return fake
    })
  })
