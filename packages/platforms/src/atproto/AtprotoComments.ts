/**
 * Replies under a Bluesky post as comments.
 *
 * - Read: `app.bsky.feed.getPostThread` of the post (an App View method; the PDS proxies it to
 *   its App View), every reply of the tree flattened; a reply the post's threadgate lists in
 *   `hiddenReplies` is hidden. A poll is one call; the mark keeps a reply from being returned twice.
 *   https://docs.bsky.app/docs/api/app-bsky-feed-get-post-thread
 * - Reply: an `app.bsky.feed.post` whose `reply` names the thread's root (our post) and the
 *   parent (the reply answered), each by URI and CID (read with `com.atproto.repo.getRecord`).
 *   https://docs.bsky.app/docs/advanced-guides/posts#replies
 * - Hide: the post's threadgate (`app.bsky.feed.threadgate`, record key = the post's) lists the
 *   reply in `hiddenReplies` (at most 300); its other rules (`allow`) are kept as they are.
 *   https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/feed/threadgate.json
 * - Delete: `com.atproto.repo.deleteRecord` of the account's own reply; another account's reply
 *   cannot be deleted (`invalid_state`), only hidden.
 *
 * @since 0.5.0
 */
import type { CommentPollInput, PlatformComment, PlatformFailure, TargetRecord } from "@postwire/core"
import { Clock, Effect, Schema } from "effect"
import { advance, type CommentAdapter, decodeCursor, isNew, Mark, noMark, platformPostIdOf, unsupported } from "../comments/CommentAdapter.ts"
import { failure, field, numberField, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import { didOf, permalink, postCollection, rkeyOf } from "./Atproto.ts"
import * as Tid from "./Tid.ts"
import * as Xrpc from "./Xrpc.ts"

/** Settings: the web app's address for the replies' permalinks. */
export interface Config {
  readonly webHost: string
}

/** The most replies a threadgate hides (threadgate.json `hiddenReplies.maxLength`). */
export const hiddenMax = 300

/** What a poll saves. */
export const Cursor = Schema.Struct({ mark: Mark })

const threadgateCollection = "app.bsky.feed.threadgate"

/** The `at://` URI of a target's post. */
export const postUri = (target: TargetRecord, did: string): string | null => {
  const id = platformPostIdOf(target)
  if (id !== null) return id
  const rkey = stringField(target.platformState, "rkey")
  return rkey === undefined ? null : `at://${did}/${postCollection}/${rkey}`
}

/** The replies of a thread answer, flattened (depth first), with the thread's hidden replies. */
export const repliesOf = (
  thread: unknown,
  rootUri: string,
  ownDid: string,
  hidden: ReadonlySet<string>,
  webHost: string
): ReadonlyArray<PlatformComment> => {
  const out: Array<PlatformComment> = []
  const walk = (node: unknown) => {
    const replies = field(node, "replies")
    if (!Array.isArray(replies)) return
    for (const reply of replies) {
      const post = field(reply, "post")
      const uri = stringField(post, "uri")
      if (uri === undefined) continue
      const author = field(post, "author")
      const handle = stringField(author, "handle") ?? ""
      const record = field(post, "record")
      const parent = stringField(field(field(record, "reply"), "parent"), "uri")
      const created = Date.parse(stringField(record, "createdAt") ?? stringField(post, "indexedAt") ?? "")
      out.push({
        platformCommentId: uri,
        parentPlatformCommentId: parent === undefined || parent === rootUri ? null : parent,
        authorHandle: handle,
        authorDisplayName: stringField(author, "displayName") ?? null,
        authorPlatformId: stringField(author, "did") ?? null,
        text: stringField(record, "text") ?? "",
        createdAt: Number.isFinite(created) ? created : 0,
        hidden: hidden.has(uri),
        likeCount: numberField(post, "likeCount") ?? null,
        fromOwner: stringField(author, "did") === ownDid,
        permalink: handle === "" ? null : permalink(webHost, handle, rkeyOf(uri))
      })
      walk(reply)
    }
  }
  walk(thread)
  return out
}

/** Creates the comment adapter. */
export const make = (config: Config, wire: Wire): CommentAdapter => {
  const rootOf = (session: Xrpc.Session, target: TargetRecord) => {
    const uri = postUri(target, session.current().did)
    return uri === null ? Effect.fail(failure("invalid_state", "post_uri_unknown", { retryable: false })) : Effect.succeed(uri)
  }
  const refused = (response: WireResponse, now: number) => Xrpc.toFailure(response, now)
  const withUpdate = <A extends object>(session: Xrpc.Session, a: A) => {
    const update = session.update()
    return update === undefined ? a : { ...a, credentials: update }
  }
  const thread = (session: Xrpc.Session, uri: string, depth: string) =>
    Effect.gen(function* () {
      const response = yield* session.call({ _tag: "query", nsid: "app.bsky.feed.getPostThread", params: { uri, depth, parentHeight: "0" } })
      if (!Xrpc.ok(response)) return yield* Effect.fail(refused(response, yield* Clock.currentTimeMillis))
      return response.json
    })
  const getRecord = (session: Xrpc.Session, collection: string, rkey: string) =>
    session.call({ _tag: "query", nsid: "com.atproto.repo.getRecord", params: { repo: session.current().did, collection, rkey } })

  const poll = (input: CommentPollInput) =>
    Effect.gen(function* () {
      const session = yield* Xrpc.session(wire, input.account.id, input.account.credentials)
      const root = yield* rootOf(session, input.target)
      const answer = yield* thread(session, root, "1000")
      const gate = field(field(field(answer, "threadgate"), "record"), "hiddenReplies")
      const hidden = new Set(Array.isArray(gate) ? gate.filter((u): u is string => typeof u === "string") : [])
      const all = repliesOf(field(answer, "thread"), root, session.current().did, hidden, config.webHost)
      const cursor = decodeCursor(Cursor, input.cursor) ?? { mark: noMark }
      const fresh = all.filter((c) => isNew(cursor.mark, c, Number.POSITIVE_INFINITY))
      return withUpdate(session, { comments: fresh, cursor: { mark: advance(cursor.mark, fresh) }, calls: 1 })
    })

  return {
    poll,
    reply: (input) =>
      Effect.gen(function* () {
        const session = yield* Xrpc.session(wire, input.account.id, input.account.credentials)
        const now = yield* Clock.currentTimeMillis
        const rootUri = yield* rootOf(session, input.target)
        const rootRecord = yield* getRecord(session, postCollection, rkeyOf(rootUri))
        if (!Xrpc.ok(rootRecord)) return yield* Effect.fail(refused(rootRecord, now))
        // The parent's CID from its repository (a PDS answers for its own accounts and asks the
        // network's App View for the others).
        const parentRecord = yield* session.call({
          _tag: "query",
          nsid: "com.atproto.repo.getRecord",
          params: { repo: didOf(input.platformCommentId), collection: postCollection, rkey: rkeyOf(input.platformCommentId) }
        })
        if (!Xrpc.ok(parentRecord)) return yield* Effect.fail(refused(parentRecord, now))
        const parentCid = stringField(parentRecord.json, "cid")
        const rootCid = stringField(rootRecord.json, "cid")
        if (parentCid === undefined || rootCid === undefined) return yield* Effect.fail(failure("platform_unavailable", "malformed_response:cid"))
        const createdAt = new Date(now).toISOString()
        const record = {
          $type: postCollection,
          text: input.text,
          createdAt,
          reply: { root: { uri: rootUri, cid: rootCid }, parent: { uri: input.platformCommentId, cid: parentCid } }
        }
        const created = yield* session.call({
          _tag: "procedure",
          nsid: "com.atproto.repo.createRecord",
          json: { repo: session.current().did, collection: postCollection, rkey: Tid.next(now), record }
        })
        if (!Xrpc.ok(created)) return yield* Effect.fail(refused(created, now))
        const uri = stringField(created.json, "uri")
        if (uri === undefined) return yield* Effect.fail(failure("platform_unavailable", "malformed_response:createRecord"))
        const comment: PlatformComment = {
          platformCommentId: uri,
          parentPlatformCommentId: input.platformCommentId === rootUri ? null : input.platformCommentId,
          authorHandle: session.current().handle,
          authorDisplayName: null,
          authorPlatformId: session.current().did,
          text: input.text,
          createdAt: now,
          hidden: false,
          likeCount: 0,
          fromOwner: true,
          permalink: permalink(config.webHost, session.current().handle, rkeyOf(uri))
        }
        return withUpdate(session, { comment })
      }),
    setHidden: (input) =>
      Effect.gen(function* () {
        const session = yield* Xrpc.session(wire, input.account.id, input.account.credentials)
        const now = yield* Clock.currentTimeMillis
        const rootUri = yield* rootOf(session, input.target)
        const rkey = rkeyOf(rootUri)
        const existing = yield* getRecord(session, threadgateCollection, rkey)
        if (!Xrpc.ok(existing) && Xrpc.errorName(existing) !== "RecordNotFound") return yield* Effect.fail(refused(existing, now))
        const gate: Record<string, unknown> = Xrpc.ok(existing)
          ? { ...(field(existing.json, "value") as Record<string, unknown>) }
          : { $type: threadgateCollection, post: rootUri, createdAt: new Date(now).toISOString() }
        const listed = Array.isArray(gate.hiddenReplies) ? (gate.hiddenReplies as ReadonlyArray<unknown>).filter((u): u is string => typeof u === "string") : []
        const next = input.hidden ? [...new Set([...listed, input.platformCommentId])] : listed.filter((u) => u !== input.platformCommentId)
        if (next.length > hiddenMax) return yield* Effect.fail(unsupported("hidden_replies_max"))
        const swap = Xrpc.ok(existing) ? stringField(existing.json, "cid") : undefined
        const put = yield* session.call({
          _tag: "procedure",
          nsid: "com.atproto.repo.putRecord",
          json: {
            repo: session.current().did,
            collection: threadgateCollection,
            rkey,
            record: { ...gate, hiddenReplies: next },
            // Compare-and-swap: a threadgate changed meanwhile is not overwritten blindly.
            ...(swap === undefined ? {} : { swapRecord: swap })
          }
        })
        if (!Xrpc.ok(put)) return yield* Effect.fail(refused(put, now))
        return withUpdate(session, {})
      }),
    remove: (input) =>
      Effect.gen(function* () {
        const session = yield* Xrpc.session(wire, input.account.id, input.account.credentials)
        const now = yield* Clock.currentTimeMillis
        if (didOf(input.platformCommentId) !== session.current().did) return yield* Effect.fail(unsupported("not_own_reply"))
        const deleted = yield* session.call({
          _tag: "procedure",
          nsid: "com.atproto.repo.deleteRecord",
          json: { repo: session.current().did, collection: postCollection, rkey: rkeyOf(input.platformCommentId) }
        })
        if (!Xrpc.ok(deleted)) return yield* Effect.fail(refused(deleted, now))
        return withUpdate(session, {})
      })
  } satisfies CommentAdapter as CommentAdapter
}

/** Whether a failure says the reply is not there (a deleted thread): for callers that map it. */
export const isNotFound = (f: PlatformFailure): boolean => f.platformCode === "NotFound" || f.platformCode === "RecordNotFound"
