/**
 * The comments use-cases: list, get, reply, hide, unhide, delete.
 *
 * Reads come from the `CommentStore`; actions go to the platform as the account first
 * (`CommentPlatform`) and are stored once the platform said yes. An answer made here is stored
 * through the same path as polled comments, so a poll that later sees it stores nothing twice.
 *
 * @since 0.3.0
 */

import type { Ids as Id } from "@postwire/domain"
import {
  type Comment,
  defaultPageSize,
  ErrorDetail,
  formatInstant,
  PostwireError,
  parseInstant
} from "@postwire/domain"
import { Cause, Effect, Option } from "effect"
import { type Caller, refuseLiveToTestKey, sees } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { Ids } from "../ids/Ids.ts"
import { decodeCursor, encodeCursor, filterDigest } from "../posts/Cursor.ts"
import { accountContext, CredentialsCipher, openAccountCredentials } from "../secrets/CredentialsCipher.ts"
import { type CredentialsUpdate, PlatformFailure } from "../platform/PlatformFailure.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import { Store } from "../store/Store.ts"
import { CommentPlatform, type PlatformComment } from "./CommentPlatform.ts"
import { type CommentRecord, CommentStore, type NewComment } from "./CommentStore.ts"

const now = Effect.clockWith((c) => c.currentTimeMillis)

const notFound = () => new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("comment") } })

/** The wire form of a stored comment: the API's answer and the data of `comment.created`. */
export const commentView = (c: CommentRecord): Comment.Comment => ({
  id: c.id,
  post_id: c.postId,
  target_id: c.targetId,
  account_id: c.accountId,
  platform: c.platform,
  platform_comment_id: c.platformCommentId,
  parent_id: c.parentId,
  author: { handle: c.authorHandle, ...(c.authorDisplayName === null ? {} : { display_name: c.authorDisplayName }) },
  text: c.text,
  created_at: formatInstant(c.createdAt),
  hidden: c.hidden,
  like_count: c.likeCount,
  from_owner: c.fromOwner,
  permalink: c.permalink
})

/** The `comment.created` event of a stored comment. */
export const commentCreatedEvent = (comment: CommentRecord, eventId: Id.EventId, livemode: boolean, at: number): OutboxEvent => ({
  id: eventId,
  workspaceId: comment.workspaceId,
  type: "comment.created",
  createdAt: at,
  livemode,
  data: commentView(comment)
})

/** Orders comments so that a parent in the list comes before its answers. */
export const parentsFirst = <A extends { readonly platformCommentId: string; readonly parentPlatformCommentId: string | null }>(
  comments: ReadonlyArray<A>
): ReadonlyArray<A> => {
  const ordered: Array<A> = []
  const placed = new Set<string>()
  let remaining = [...comments]
  while (remaining.length > 0) {
    const waiting = new Set(remaining.map((c) => c.platformCommentId))
    const ready = remaining.filter(
      (c) => c.parentPlatformCommentId === null || !waiting.has(c.parentPlatformCommentId) || c.parentPlatformCommentId === c.platformCommentId
    )
    // A cycle (never from a real platform) is broken by taking the rest as they are.
    const next = ready.length === 0 ? remaining : ready
    for (const c of next) {
      if (!placed.has(c.platformCommentId)) ordered.push(c)
      placed.add(c.platformCommentId)
    }
    remaining = remaining.filter((c) => !next.includes(c))
  }
  return ordered
}

/** Where a platform comment lands: its target, post and account. */
export interface CommentPlace {
  readonly workspaceId: Id.WorkspaceId
  readonly postId: Id.PostId
  readonly targetId: Id.TargetId
  readonly accountId: Id.AccountId
  readonly platform: CommentRecord["platform"]
}

/** Gives platform comments the ids they get if they are new (a `cmt_` id and an event id). */
export const newComments = Effect.fn("comments.prepare")(function* (
  place: CommentPlace,
  comments: ReadonlyArray<PlatformComment>,
  at: number
) {
  const ids = yield* Ids
  const prepared: Array<NewComment> = []
  for (const c of parentsFirst(comments)) {
    prepared.push({
      record: {
        id: yield* ids.make("comment"),
        workspaceId: place.workspaceId,
        postId: place.postId,
        targetId: place.targetId,
        accountId: place.accountId,
        platform: place.platform,
        platformCommentId: c.platformCommentId,
        parentId: null,
        parentPlatformCommentId: c.parentPlatformCommentId,
        authorHandle: c.authorHandle,
        authorDisplayName: c.authorDisplayName,
        text: c.text,
        createdAt: c.createdAt,
        hidden: c.hidden,
        likeCount: c.likeCount,
        fromOwner: c.fromOwner,
        permalink: c.permalink,
        storedAt: at
      },
      eventId: yield* ids.make("event")
    })
  }
  return prepared
})

/** Seals refreshed tokens for the account they name (tokens rotate: they must be kept). */
export const sealUpdate = Effect.fn("comments.sealCredentials")(function* (
  account: Pick<AccountRecord, "workspaceId" | "id">,
  update: CredentialsUpdate | undefined
) {
  if (update === undefined || update.accountId !== account.id) return undefined
  const cipher = yield* CredentialsCipher
  return cipher.seal(update.credentials, accountContext(account.workspaceId, account.id))
})

const platformError = (failure: PlatformFailure) =>
  new PostwireError({
    code: failure.code,
    platformCode: failure.platformCode,
    retryable: failure.retryable,
    details: failure.details
  })

/** Turns an adapter's defect into a retryable failure: a bug must not answer with a stack. */
const guarded = <A>(effect: Effect.Effect<A, PlatformFailure>) =>
  effect.pipe(
    Effect.catchDefect((defect) =>
      Effect.logError("the comment adapter failed unexpectedly", Cause.die(defect)).pipe(
        Effect.andThen(Effect.fail(new PlatformFailure({ code: "internal_error", platformCode: "adapter_defect", retryable: true })))
      )
    )
  )

/** Lists comments newest first, filtered, a page at a time. */
export const listComments = Effect.fn("comments.list")(function* (caller: Caller, query: Comment.ListCommentsQuery) {
  const comments = yield* CommentStore
  const settings = yield* EngineConfig
  const at = yield* now
  const from = query.from === undefined ? undefined : parseInstant(query.from)
  const to = query.to === undefined ? undefined : parseInstant(query.to)
  if (from !== undefined && to !== undefined) {
    if (to <= from) {
      return yield* Effect.fail(
        new PostwireError({ code: "invalid_range", field: "to", details: { detail: ErrorDetail.reason("range_order") } })
      )
    }
    if (to - from > settings.maxRangeMs) {
      return yield* Effect.fail(
        new PostwireError({
          code: "invalid_range",
          field: "to",
          details: { detail: ErrorDetail.reason("range_too_long", { days: Math.round(settings.maxRangeMs / 86_400_000) }) }
        })
      )
    }
  }
  const filter = {
    postId: query.post_id,
    targetId: query.target_id,
    accountId: query.account_id,
    platform: query.platform,
    hidden: query.hidden === undefined ? undefined : query.hidden === "true",
    from,
    to
  }
  const digest = filterDigest(`comments:${caller.workspaceId}`, filter)
  let after: { sortKey: number; id: string } | undefined
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(settings.keyring, query.cursor, digest, at, settings.cursorTtlMs)
    if (Option.isNone(decoded)) return yield* Effect.fail(new PostwireError({ code: "invalid_cursor", field: "cursor" }))
    after = decoded.value
  }
  const limit = query.limit ?? defaultPageSize
  const rows = yield* comments.listComments(caller.workspaceId, filter, after, limit + 1)
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const hasMore = rows.length > limit && last !== undefined
  // A test key sees only the comments of sandbox accounts; the cursor still follows the page as stored.
  const accounts =
    caller.kind === "test" && page.length > 0
      ? yield* Store.use((store) => store.getAccounts(caller.workspaceId, [...new Set(page.map((c) => c.accountId))]))
      : []
  const live = new Set<string>(accounts.filter((a) => !a.sandbox).map((a) => a.id))
  return {
    data: page.filter((c) => sees(caller, live.has(c.accountId))).map(commentView),
    cursor: {
      next: hasMore ? encodeCursor(settings.keyring, { sortKey: last.createdAt, id: last.id }, digest, at) : null,
      has_more: hasMore
    }
  } satisfies Comment.CommentList
})

const loadComment = Effect.fn("comments.load")(function* (caller: Caller, id: Id.CommentId) {
  const comments = yield* CommentStore
  const found = yield* comments.getComment(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* Effect.fail(notFound())
  return found.value
})

/** One comment. */
export const getComment = Effect.fn("comments.get")(function* (caller: Caller, id: Id.CommentId) {
  const comment = yield* loadComment(caller, id)
  if (caller.kind === "test") {
    const account = yield* Store.use((store) => store.getAccount(caller.workspaceId, comment.accountId))
    yield* refuseLiveToTestKey(caller, Option.isSome(account) && !account.value.sandbox)
  }
  return commentView(comment)
})

/** The comment with its post, target and account (credentials opened), checked for `action`. */
const loadForAction = Effect.fn("comments.loadForAction")(function* (
  caller: Caller,
  id: Id.CommentId,
  action: Comment.CommentAction
) {
  const store = yield* Store
  const platform = yield* CommentPlatform
  const comment = yield* loadComment(caller, id)
  const account = yield* store.getAccount(caller.workspaceId, comment.accountId)
  const aggregate = yield* store.getPost(caller.workspaceId, comment.postId)
  const target = Option.isSome(aggregate) ? aggregate.value.targets.find((t) => t.id === comment.targetId) : undefined
  if (Option.isNone(account) || Option.isNone(aggregate) || target === undefined) return yield* Effect.fail(notFound())
  if (caller.kind === "test" && !account.value.sandbox) {
    return yield* Effect.fail(new PostwireError({ code: "test_key_live_account", field: "id" }))
  }
  if (!platform.capabilities(account.value.platform, account.value.sandbox)[action]) {
    return yield* Effect.fail(
      new PostwireError({
        code: "comment_action_unsupported",
        details: { action: ErrorDetail.reason(`comment_${action}`), platform: account.value.platform }
      })
    )
  }
  const polled = yield* CommentStore.use((s) => s.getPollState({ workspaceId: caller.workspaceId, targetId: target.id }))
  return {
    comment,
    account: account.value,
    opened: yield* openAccountCredentials(account.value),
    post: aggregate.value.post,
    target: { ...target, platformPostId: Option.isSome(polled) ? polled.value.platformPostId : (target.platformPostId ?? null) }
  }
})

/** Stores credentials refreshed during a comment action. */
const keepCredentials = Effect.fn("comments.keepCredentials")(function* (
  account: AccountRecord,
  update: CredentialsUpdate | undefined
) {
  const sealed = yield* sealUpdate(account, update)
  if (sealed !== undefined) yield* CommentStore.use((s) => s.updateAccountCredentials(account.workspaceId, account.id, sealed))
})

/** Keeps the credentials a refused call refreshed, and answers the refusal in the shared shape. */
const refuse = (account: AccountRecord) => (failure: PlatformFailure) =>
  keepCredentials(account, failure.credentials).pipe(Effect.andThen(Effect.fail(platformError(failure))))

/**
 * Publishes `text` as the account's answer to a comment, stores the answer (announced with
 * `comment.created` like any new comment) and returns it.
 */
export const replyToComment = Effect.fn("comments.reply")(function* (
  caller: Caller,
  id: Id.CommentId,
  request: Comment.ReplyToCommentRequest
) {
  const platform = yield* CommentPlatform
  const store = yield* CommentStore
  const loaded = yield* loadForAction(caller, id, "reply")
  const answered = yield* guarded(
    platform.reply({
      post: loaded.post,
      target: loaded.target,
      account: loaded.opened,
      platformCommentId: loaded.comment.platformCommentId,
      text: request.text
    })
  ).pipe(Effect.catchTag("PlatformFailure", refuse(loaded.account)))
  yield* keepCredentials(loaded.account, answered.credentials)
  const at = yield* now
  const answer: PlatformComment = {
    ...answered.comment,
    parentPlatformCommentId: answered.comment.parentPlatformCommentId ?? loaded.comment.platformCommentId,
    fromOwner: true
  }
  const [prepared] = yield* newComments(loaded.comment, [answer], at)
  const livemode = !loaded.account.sandbox
  const stored = yield* store.storeComments({
    workspaceId: caller.workspaceId,
    comments: prepared === undefined ? [] : [prepared],
    event: (comment, eventId) => commentCreatedEvent(comment, eventId, livemode, at)
  })
  const inserted = stored.inserted[0]
  if (inserted !== undefined) return commentView(inserted)
  // Seen first by a poll or the platform's webhook: answer what is stored.
  const existing = yield* store.changeComment(caller.workspaceId, loaded.account.id, answer.platformCommentId, {})
  return commentView(Option.getOrThrow(existing))
})

/** Hides (`true`) or shows again (`false`) a comment on the platform, and stores it so. */
export const setCommentHidden = Effect.fn("comments.setHidden")(function* (caller: Caller, id: Id.CommentId, hidden: boolean) {
  const platform = yield* CommentPlatform
  const store = yield* CommentStore
  const loaded = yield* loadForAction(caller, id, "hide")
  const done = yield* guarded(
    platform.setHidden({
      post: loaded.post,
      target: loaded.target,
      account: loaded.opened,
      platformCommentId: loaded.comment.platformCommentId,
      hidden
    })
  ).pipe(Effect.catchTag("PlatformFailure", refuse(loaded.account)))
  yield* keepCredentials(loaded.account, done.credentials)
  const changed = yield* store.changeComment(caller.workspaceId, loaded.account.id, loaded.comment.platformCommentId, { hidden })
  if (Option.isNone(changed)) return yield* Effect.fail(notFound())
  return commentView(changed.value)
})

/** Deletes a comment on the platform; it is no longer listed. */
export const deleteComment = Effect.fn("comments.delete")(function* (caller: Caller, id: Id.CommentId) {
  const platform = yield* CommentPlatform
  const store = yield* CommentStore
  const loaded = yield* loadForAction(caller, id, "delete")
  const done = yield* guarded(
    platform.remove({
      post: loaded.post,
      target: loaded.target,
      account: loaded.opened,
      platformCommentId: loaded.comment.platformCommentId
    })
  ).pipe(Effect.catchTag("PlatformFailure", refuse(loaded.account)))
  yield* keepCredentials(loaded.account, done.credentials)
  yield* store.changeComment(caller.workspaceId, loaded.account.id, loaded.comment.platformCommentId, { deleted: true })
  return { id: loaded.comment.id, deleted: true as const } satisfies Comment.DeletedComment
})
