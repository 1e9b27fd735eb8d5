/**
 * The `CommentStore` in memory, beside the tables of the in-memory `Store` (`MemoryState`), so
 * the publisher (which starts polling a target as it publishes) and the outbox see its writes
 * as they would in one database. Every method runs in one synchronous step: atomic, like a
 * transaction.
 *
 * @since 0.3.0
 */
import { Effect, Layer, Option } from "effect"
import type { Ids } from "@postwire/domain"
import { MemoryState, type MemoryTables, rowKey } from "./MemoryState.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import {
  type CommentPollState,
  type CommentRecord,
  CommentStore,
  type CommentStoreShape,
  type PollDeferral,
  type PollKey
} from "../comments/CommentStore.ts"

const k = rowKey

/** Starts polling a target unless it is polled already. */
export const trackTarget = (tables: MemoryTables, state: CommentPollState): void => {
  const key = k(state.workspaceId, state.targetId)
  if (!tables.commentPolls.has(key)) tables.commentPolls.set(key, state)
}

const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)

/** Builds the comment store over the tables of an in-memory `Store`. */
export const make = (memory: MemoryTables): CommentStoreShape => {
  const {
    commentBudgets: budgets,
    commentPolls: polls,
    comments,
    commentsByPlatformId: byPlatformId,
    deletedComments: deleted
  } = memory

  const appendEvent = (event: OutboxEvent) => memory.appendEvents([event])

  const storeCredentials = (workspaceId: string, accountId: string, credentials: string | undefined) => {
    if (credentials === undefined) return
    const account = memory.accounts.get(workspaceId, accountId)
    if (account !== undefined) memory.accounts.put(workspaceId, accountId, { ...account, credentials })
  }

  const needsReconnect = (workspaceId: string, accountId: string, change: NonNullable<PollDeferral["reconnect"]>) => {
    const account = memory.accounts.get(workspaceId, accountId)
    if (account?.status !== "connected") return
    memory.accounts.put(workspaceId, accountId, { ...account, status: "needs_reconnect" })
    const connection = memory.connections.get(workspaceId, accountId)
    if (connection !== undefined) memory.connections.put(workspaceId, accountId, { ...connection, reconnectReason: change.reason })
    memory.appendEvents(change.events)
  }

  const heldPoll = (key: PollKey, owner: string) => {
    const found = polls.get(k(key.workspaceId, key.targetId))
    return found !== undefined && found.leaseOwner === owner ? found : undefined
  }

  const visible = (workspaceId: string, id: string) => {
    const found = comments.get(k(workspaceId, id))
    return found === undefined || deleted.has(k(workspaceId, id)) ? undefined : found
  }

  return {
    listComments: (workspaceId, filter, after, limit) =>
      Effect.sync(() =>
        [...comments.values()]
          .filter(
            (c) =>
              c.workspaceId === workspaceId &&
              !deleted.has(k(workspaceId, c.id)) &&
              (filter.postId === undefined || c.postId === filter.postId) &&
              (filter.targetId === undefined || c.targetId === filter.targetId) &&
              (filter.accountId === undefined || c.accountId === filter.accountId) &&
              (filter.platform === undefined || c.platform === filter.platform) &&
              (filter.hidden === undefined || c.hidden === filter.hidden) &&
              (filter.from === undefined || c.createdAt >= filter.from) &&
              (filter.to === undefined || c.createdAt < filter.to) &&
              (after === undefined ||
                c.createdAt < after.sortKey ||
                (c.createdAt === after.sortKey && c.id < after.id))
          )
          .sort((a, b) => b.createdAt - a.createdAt || compareDesc(a.id, b.id))
          .slice(0, Math.max(0, limit))
      ),

    getComment: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(visible(workspaceId, id))),

    storeComments: (batch) =>
      Effect.sync(() => {
        const inserted: Array<CommentRecord> = []
        for (const { eventId, record } of batch.comments) {
          const unique = k(batch.workspaceId, record.accountId, record.platformCommentId)
          if (byPlatformId.has(unique)) continue
          const parentId: Ids.CommentId | null =
            record.parentPlatformCommentId === null
              ? null
              : (byPlatformId.get(k(batch.workspaceId, record.accountId, record.parentPlatformCommentId)) ?? null)
          const stored = { ...record, workspaceId: batch.workspaceId, parentId }
          comments.set(k(batch.workspaceId, stored.id), stored)
          byPlatformId.set(unique, stored.id)
          appendEvent(batch.event(stored, eventId))
          inserted.push(stored)
        }
        let pollSaved = false
        if (batch.poll !== undefined) {
          const { completion, key } = batch.poll
          const held = heldPoll(key, completion.owner)
          if (held !== undefined) {
            polls.set(k(key.workspaceId, key.targetId), {
              ...held,
              cursor: completion.cursor,
              nextPollAt: completion.nextPollAt,
              failures: 0,
              leaseOwner: null,
              leaseUntil: null
            })
            storeCredentials(key.workspaceId, held.accountId, completion.credentials)
            pollSaved = true
          }
        }
        return { inserted, pollSaved }
      }),

    changeComment: (workspaceId, accountId, platformCommentId, change) =>
      Effect.sync(() => {
        const id = byPlatformId.get(k(workspaceId, accountId, platformCommentId))
        const found = id === undefined ? undefined : visible(workspaceId, id)
        if (found === undefined) return Option.none()
        const next: CommentRecord = {
          ...found,
          ...(change.text === undefined ? {} : { text: change.text }),
          ...(change.hidden === undefined ? {} : { hidden: change.hidden })
        }
        comments.set(k(workspaceId, found.id), next)
        if (change.deleted === true) deleted.add(k(workspaceId, found.id))
        return Option.some(next)
      }),

    trackTarget: (state) => Effect.sync(() => trackTarget(memory, state)),

    getPollState: (key) => Effect.sync(() => Option.fromNullishOr(polls.get(k(key.workspaceId, key.targetId)))),

    claimDuePolls: ({ at, leaseUntil, limit, owner }) =>
      Effect.sync(() => {
        const due = [...polls.values()]
          .filter((p) => p.nextPollAt !== null && p.nextPollAt <= at && (p.leaseUntil === null || p.leaseUntil <= at))
          .sort((a, b) => (a.nextPollAt ?? 0) - (b.nextPollAt ?? 0) || (a.targetId < b.targetId ? -1 : 1))
          .slice(0, Math.max(0, limit))
        return due.map((p) => {
          const claimed = { ...p, leaseOwner: owner, leaseUntil }
          polls.set(k(p.workspaceId, p.targetId), claimed)
          return claimed
        })
      }),

    deferPoll: (key, owner, deferral) =>
      Effect.sync(() => {
        const held = heldPoll(key, owner)
        if (held === undefined) return false
        polls.set(k(key.workspaceId, key.targetId), {
          ...held,
          nextPollAt: deferral.nextPollAt,
          failures: deferral.failures,
          leaseOwner: null,
          leaseUntil: null
        })
        storeCredentials(key.workspaceId, held.accountId, deferral.credentials)
        if (deferral.reconnect !== undefined) needsReconnect(key.workspaceId, held.accountId, deferral.reconnect)
        return true
      }),

    findPolledTargets: (platform, accountExternalId, platformPostId) =>
      Effect.sync(() =>
        [...polls.values()].filter((p) => {
          if (p.platform !== platform || p.platformPostId !== platformPostId) return false
          if (accountExternalId === null) return true
          return memory.accounts.get(p.workspaceId, p.accountId)?.externalId === accountExternalId
        })
      ),

    takeCallBudget: (workspaceId, accountId, windowStart, budget, calls) =>
      Effect.sync(() => {
        const key = k(workspaceId, accountId)
        const current = budgets.get(key)
        if (budget <= 0) return false
        if (current === undefined || current.windowStart < windowStart) {
          budgets.set(key, { windowStart, calls })
          return true
        }
        if (current.windowStart > windowStart || current.calls >= budget) return false
        budgets.set(key, { windowStart, calls: current.calls + calls })
        return true
      }),

    callsUsed: (workspaceId, accountId, windowStart) =>
      Effect.sync(() => {
        const current = budgets.get(k(workspaceId, accountId))
        return current?.windowStart === windowStart ? current.calls : 0
      }),

    addCalls: (workspaceId, accountId, windowStart, calls) =>
      Effect.sync(() => {
        const key = k(workspaceId, accountId)
        const current = budgets.get(key)
        if (current?.windowStart === windowStart) budgets.set(key, { windowStart, calls: current.calls + calls })
      }),

    updateAccountCredentials: (workspaceId, accountId, credentials) =>
      Effect.sync(() => storeCredentials(workspaceId, accountId, credentials))
  }
}

/** The in-memory comment store, over the in-memory `Store`'s tables. */
export const layer: Layer.Layer<CommentStore, never, MemoryState> = Layer.effect(CommentStore)(MemoryState.useSync(make))
