/**
 * The events API: every event of a workspace, kept 30 days, exactly as its deliveries carry it,
 * so a receiver that was down catches up by reading instead of waiting for retries.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import { defaultPageSize, ErrorDetail, PostwireError, type Webhook } from "@postwire/domain"
import { type Caller, refuseLiveToTestKey, sees } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import { encodeCursor, filterDigest } from "../posts/Cursor.ts"
import { checkRange, readCursor } from "./DeliveryLog.ts"
import { eventView } from "./Webhooks.ts"
import { WebhookStore } from "./WebhookStore.ts"

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** The cipher that opens stored approval links: the one in context, else the engine secret's. */
const cipher = Effect.gen(function* () {
  const provided = yield* Effect.serviceOption(CredentialsCipher)
  return Option.isSome(provided) ? provided.value : CredentialsCipher.make((yield* EngineConfig).keyring)
})

/**
 * The workspace's events, newest first: any of the `type`s given, within `from`/`to` on
 * `created_at`, about one post or one account.
 *
 * @example
 * ```ts
 * const page = yield* EventLog.listEvents(caller, { type: ["post.published", "post.failed"], from: "2026-11-22T00:00:00Z" })
 * ```
 */
export const listEvents = Effect.fn("events.list")(function* (caller: Caller, query: Webhook.ListEventsQuery) {
  const store = yield* WebhookStore
  const settings = yield* EngineConfig
  const range = yield* checkRange(query.from, query.to)
  const types = query.type === undefined ? undefined : [...new Set(query.type)].sort()
  const filter = { types, from: range.from, to: range.to, postId: query.post_id, accountId: query.account_id }
  const digest = filterDigest(`events:${caller.workspaceId}`, filter)
  const after = yield* readCursor(query.cursor, digest)
  const limit = query.limit ?? defaultPageSize
  const opener = yield* cipher
  const rows = yield* store.listEventLog(caller.workspaceId, filter, after, limit + 1)
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const hasMore = rows.length > limit && last !== undefined
  return {
    // A test key sees only test-mode events; the cursor still follows the page as stored.
    data: page.filter((e) => sees(caller, e.livemode)).map((event) => eventView(event, opener, caller.approvalLinks)),
    cursor: {
      next: hasMore ? encodeCursor(settings.keyring, { sortKey: last.createdAt, id: last.id }, digest, yield* now) : null,
      has_more: hasMore
    }
  } satisfies Webhook.EventList
})

/** One event of the workspace, as its deliveries carry it; `not_found` for another workspace's or one pruned. */
export const getEvent = Effect.fn("events.get")(function* (caller: Caller, id: Id.EventId) {
  const store = yield* WebhookStore
  const found = yield* store.getEvent(caller.workspaceId, id)
  if (Option.isNone(found)) {
    return yield* new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("event") } })
  }
  yield* refuseLiveToTestKey(caller, found.value.livemode)
  return eventView(found.value, yield* cipher, caller.approvalLinks)
})
