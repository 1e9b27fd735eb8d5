/**
 * A fake of Instagram's content publishing (platforms.md, "Instagram Graph API, Reels"): media
 * containers on `/{ig-user-id}/media`, `status_code` polling, `media_publish`,
 * `content_publishing_limit` (100 per 24 h), permalinks, and `ig_refresh_token`.
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
}

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

    const extension = (): ContainerFake.ContainerExtension => ({
      route: (request, [node, edge]) => {
        if (node === undefined || node === igUserId) return undefined
        const fields = request.params.fields ?? ""
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

    return Effect.map(ContainerFake.make(dialect, extension), (server) => {
      fake = Object.assign(server, {
        comments: store,
        commentScope: true,
        commentOrder: "newest_first" as const,
        comment: (input: NewComment) => store.add(input)
      })
      return fake
    })
  })
