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
}

const dialect: ContainerFake.ContainerDialect = {
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

    return Effect.map(ContainerFake.make(dialect, extension), (server) => {
      fake = Object.assign(server, {
        replies: store,
        commentScope: true,
        reply: (input: NewComment) => store.add(input)
      })
      return fake
    })
  })
