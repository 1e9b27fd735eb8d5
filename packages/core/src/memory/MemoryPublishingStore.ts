/**
 * The `PublishingStore` in memory, on the tables of the in-memory `Store` (`MemoryState`), so the
 * publisher and the use-cases see one another's writes as they would in one database. Every
 * method reads and writes in one synchronous step: atomic without locks, like a transaction.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { trackTarget } from "./MemoryCommentStore.ts"
import { trackTarget as trackAnalytics } from "./MemoryAnalyticsStore.ts"
import { move } from "../posts/TargetStatus.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { PostAggregate, TargetRecord } from "../store/PostStore.ts"
import { eventKey, MemoryState, type MemoryTables, rowKey } from "./MemoryState.ts"
import { StoreError } from "../store/StoreError.ts"
import {
  type AccountChange,
  planSteps,
  type PostStatusRule,
  PublishingStore,
  type PublishingStoreShape,
  type TargetKey
} from "../publishing/PublishingStore.ts"

const queueStatuses: ReadonlySet<string> = new Set(["queued", "scheduled", "publishing"])

const pendingKey = (workspaceId: string, targetId: string) => rowKey(workspaceId, targetId)

/** Builds the publishing store over the tables of an in-memory `Store`. */
export const make = (tables: MemoryTables): PublishingStoreShape => {
  const { accounts, media, posts } = tables
  const pending = tables.pendingPermalinks
  const comments = tables

  const mediaProcessing = (workspaceId: string, postId: string) =>
    posts.get(workspaceId, postId)?.post.media.some((id) => media.get(workspaceId, id)?.status === "processing") ?? false

  /** Fails like a unique index when an event id is taken; appends otherwise. */
  const appendEvents = (operation: string, list: ReadonlyArray<OutboxEvent>): Effect.Effect<void, StoreError> => {
    const taken = tables.takenKey(list.map(eventKey))
    if (taken !== undefined) return Effect.fail(new StoreError({ operation, cause: new Error(`duplicate key ${taken}`) }))
    tables.appendEvents(list)
    return Effect.void
  }

  /**
   * The post with one target replaced and its version bumped; its status is `status` (a
   * completion's, decided by the engine) or stays as stored.
   */
  const withTarget = (
    aggregate: PostAggregate,
    target: TargetRecord,
    at: number,
    status?: PostStatusRule | undefined
  ): PostAggregate => {
    const targets = aggregate.targets.map((t) => (t.id === target.id ? target : t))
    return {
      ...aggregate,
      targets,
      post: {
        ...aggregate.post,
        status: status === undefined ? aggregate.post.status : status(targets.map((t) => t.status)),
        updatedAt: at,
        version: aggregate.post.version + 1
      }
    }
  }

  /** The post and the target `owner` holds in status `publishing`, if it still does. */
  const held = (key: TargetKey, owner: string) => {
    const aggregate = posts.get(key.workspaceId, key.postId)
    const target = aggregate?.targets.find((t) => t.id === key.targetId)
    if (aggregate === undefined || target === undefined) return undefined
    if (target.leaseOwner !== owner || target.status !== "publishing") return undefined
    return { aggregate, target }
  }

  const applyAccountChange = (operation: string, workspaceId: string, accountId: string, change: AccountChange | undefined) => {
    if (change === undefined) return Effect.void
    return Effect.suspend(() => {
      const account = accounts.get(workspaceId, accountId)
      if (account === undefined) return Effect.void
      return Effect.map(appendEvents(operation, change.status?.events ?? []), () =>
        accounts.put(workspaceId, accountId, {
          ...account,
          ...(change.credentials === undefined ? {} : { credentials: change.credentials }),
          ...(change.status === undefined ? {} : { status: change.status.value })
        })
      )
    })
  }

  /** Replaces one target of a stored post without touching the post row (lease changes only). */
  const putTarget = (target: TargetRecord) => {
    const aggregate = posts.get(target.workspaceId, target.postId)
    if (aggregate === undefined) return
    posts.put(target.workspaceId, target.postId, {
      ...aggregate,
      targets: aggregate.targets.map((t) => (t.id === target.id ? target : t))
    })
  }

  /** The pending permalink of `key`, if `owner` holds it. */
  const heldPermalink = (key: TargetKey, owner: string) => {
    const found = pending.get(pendingKey(key.workspaceId, key.targetId))
    return found?.leaseOwner === owner ? found : undefined
  }

  const storeCredentials = (workspaceId: string, accountId: string, credentials: string | undefined) => {
    const account = accounts.get(workspaceId, accountId)
    if (credentials !== undefined && account !== undefined) accounts.put(workspaceId, accountId, { ...account, credentials })
  }

  /** What the account published in `[from, to)`, plus its targets publishing now. */
  const publishedUsage = (workspaceId: string, accountId: string, from: number, to: number) => {
    let used = 0
    let oldest: number | null = null
    for (const { targets } of posts.all(workspaceId)) {
      for (const target of targets) {
        if (target.accountId !== accountId) continue
        if (target.status === "publishing") used++
        if (target.status !== "published" || target.publishedAt === null) continue
        if (target.publishedAt < from || target.publishedAt >= to) continue
        used++
        if (oldest === null || target.publishedAt < oldest) oldest = target.publishedAt
      }
    }
    return { used, oldest }
  }

  return {
    claimDueTargets: (request) =>
      Effect.sync(() => {
        const { at, leaseUntil, limit, owner, perAccount } = request
        const leased = new Map<string, number>()
        const due: Array<TargetRecord> = []
        for (const aggregate of posts.everywhere()) {
          for (const target of aggregate.targets) {
            const account = `${target.workspaceId}/${target.accountId}`
            if (target.leaseOwner !== null && target.leaseUntil !== null && target.leaseUntil > at) {
              leased.set(account, (leased.get(account) ?? 0) + 1)
              continue
            }
            // Like the SQL store, which locks the account's row: no account, no claim.
            if (!queueStatuses.has(target.status) || target.dueAt === null || target.dueAt > at) continue
            // Like the SQL store: a target waits while a media item of its post is processing.
            if (mediaProcessing(target.workspaceId, target.postId)) continue
            if (accounts.get(target.workspaceId, target.accountId) !== undefined) due.push(target)
          }
        }
        due.sort((a, b) => a.dueAt! - b.dueAt! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        const claimed: Array<TargetRecord> = []
        for (const target of due) {
          if (claimed.length >= limit) break
          const account = `${target.workspaceId}/${target.accountId}`
          const count = leased.get(account) ?? 0
          if (count >= perAccount) continue
          leased.set(account, count + 1)
          const next = { ...target, leaseOwner: owner, leaseUntil }
          putTarget(next)
          claimed.push(next)
        }
        return claimed
      }),

    startSteps: (request) =>
      Effect.suspend(() => {
        const { from, to } = request.quotaWindow
        const plan = planSteps(request, {
          post: (workspaceId, postId) => posts.get(workspaceId, postId),
          account: (workspaceId, accountId) => accounts.get(workspaceId, accountId),
          media: (workspaceId, mediaId) => media.get(workspaceId, mediaId),
          usage: (workspaceId, accountId) => publishedUsage(workspaceId, accountId, from, to)
        })
        return Effect.map(appendEvents("startSteps", plan.events), () => {
          for (const { post, targets } of plan.changed) {
            const stored = posts.get(post.workspaceId, post.id)
            if (stored !== undefined) posts.put(post.workspaceId, post.id, { ...stored, post, targets })
          }
          return plan.steps
        })
      }),

    saveProgress: (key, owner, progress) =>
      Effect.suspend(() => {
        const found = held(key, owner)
        if (found === undefined) return Effect.succeed(false)
        const next = withTarget(
          found.aggregate,
          {
            ...found.target,
            platformState: progress.platformState,
            dueAt: progress.dueAt,
            ...(progress.keepLease === true ? {} : { leaseOwner: null, leaseUntil: null }),
            updatedAt: progress.at
          },
          progress.at
        )
        return Effect.map(
          applyAccountChange("saveProgress", key.workspaceId, found.target.accountId, progress.account),
          () => {
            posts.put(key.workspaceId, key.postId, next)
            return true
          }
        )
      }),

    requeueTarget: (key, owner, requeue) =>
      Effect.sync(() => {
        const found = held(key, owner)
        if (found === undefined) return false
        putTarget({ ...found.target, dueAt: requeue.dueAt, leaseOwner: null, leaseUntil: null, updatedAt: requeue.at })
        return true
      }),

    saveCheckpoint: (key, owner, checkpoint) =>
      Effect.sync(() => {
        const found = held(key, owner)
        if (found === undefined) return false
        const target: TargetRecord = {
          ...found.target,
          platformState: checkpoint.platformState,
          unconfirmedSince: found.target.unconfirmedSince ?? checkpoint.at,
          updatedAt: checkpoint.at
        }
        posts.put(key.workspaceId, key.postId, withTarget(found.aggregate, target, checkpoint.at))
        return true
      }),

    dueTargets: (at) =>
      Effect.sync(() => {
        let count = 0
        let oldestDueAt: number | null = null
        for (const aggregate of posts.everywhere()) {
          for (const target of aggregate.targets) {
            if (target.status !== "queued" && target.status !== "scheduled" && target.status !== "publishing") continue
            if (target.dueAt === null || target.dueAt > at) continue
            if (target.leaseUntil !== null && target.leaseUntil > at) continue
            count++
            if (oldestDueAt === null || target.dueAt < oldestDueAt) oldestDueAt = target.dueAt
          }
        }
        return { count, oldestDueAt }
      }),

    unconfirmedTargets: (at) =>
      Effect.sync(() => {
        let count = 0
        let oldestSince: number | null = null
        for (const aggregate of posts.everywhere()) {
          for (const target of aggregate.targets) {
            const since = target.unconfirmedSince ?? null
            if (target.status !== "publishing" || since === null) continue
            if (target.leaseOwner !== null && target.leaseUntil !== null && target.leaseUntil > at) continue
            count++
            if (oldestSince === null || since < oldestSince) oldestSince = since
          }
        }
        return { count, oldestSince }
      }),

    completeTarget: (key, owner, completion) =>
      Effect.suspend(() => {
        const found = held(key, owner)
        if (found === undefined) return Effect.succeed(false)
        const { outcome, at } = completion
        const { unconfirmedSince: _, ...attempted } = found.target
        const target: TargetRecord = move(attempted, outcome._tag === "Published" ? "published" : "failed", {
          permalink: outcome._tag === "Published" ? outcome.permalink : null,
          publishedAt: outcome._tag === "Published" ? outcome.publishedAt : null,
          error: outcome._tag === "Failed" ? outcome.error : null,
          attempts: found.target.attempts + 1,
          platformState: outcome.platformState,
          dueAt: null,
          leaseOwner: null,
          leaseUntil: null,
          updatedAt: at
        })
        const next = withTarget(found.aggregate, target, at, completion.postStatus)
        return appendEvents("completeTarget", completion.events).pipe(
          Effect.andThen(applyAccountChange("completeTarget", key.workspaceId, target.accountId, completion.account)),
          Effect.map(() => {
            posts.put(key.workspaceId, key.postId, next)
            if (outcome._tag === "Published" && outcome.permalinkAskAt !== undefined) {
              pending.set(pendingKey(key.workspaceId, key.targetId), {
                workspaceId: key.workspaceId,
                postId: key.postId,
                targetId: key.targetId,
                accountId: target.accountId,
                since: outcome.publishedAt,
                asked: 0,
                askAt: outcome.permalinkAskAt,
                leaseOwner: null,
                leaseUntil: null
              })
            }
            if (outcome._tag === "Published" && outcome.tracking !== undefined) {
              trackTarget(comments, {
                workspaceId: key.workspaceId,
                targetId: key.targetId,
                postId: key.postId,
                accountId: target.accountId,
                platform: target.platform,
                platformPostId: outcome.tracking.platformPostId,
                publishedAt: outcome.publishedAt,
                cursor: null,
                nextPollAt: outcome.tracking.firstCommentPollAt,
                failures: 0,
                leaseOwner: null,
                leaseUntil: null
              })
              // Metrics are read from now on; the collector places the first reading on its schedule.
              trackAnalytics(comments, {
                workspaceId: key.workspaceId,
                targetId: key.targetId,
                postId: key.postId,
                accountId: target.accountId,
                platform: target.platform,
                platformPostId: outcome.tracking.platformPostId,
                publishedAt: outcome.publishedAt,
                state: "active",
                nextDueAt: outcome.publishedAt,
                failures: 0,
                collectedAt: null,
                values: {},
                raw: {},
                leaseOwner: null,
                leaseUntil: null
              })
            }
            return true
          })
        )
      }),

    claimPendingPermalinks: ({ at, leaseUntil, limit, owner }) =>
      Effect.sync(() => {
        const due = [...pending.values()]
          .filter((p) => p.askAt <= at && (p.leaseUntil === null || p.leaseUntil <= at))
          .sort((a, b) => a.askAt - b.askAt || (a.targetId < b.targetId ? -1 : a.targetId > b.targetId ? 1 : 0))
          .slice(0, Math.max(0, limit))
        return due.map((p) => {
          const claimed = { ...p, leaseOwner: owner, leaseUntil }
          pending.set(pendingKey(p.workspaceId, p.targetId), claimed)
          return claimed
        })
      }),

    fillPermalink: (key, owner, fill) =>
      Effect.sync(() => {
        const held = heldPermalink(key, owner)
        if (held === undefined) return false
        pending.delete(pendingKey(key.workspaceId, key.targetId))
        const aggregate = posts.get(key.workspaceId, key.postId)
        const target = aggregate?.targets.find((t) => t.id === key.targetId)
        if (aggregate === undefined || target === undefined || target.status !== "published") return false
        const filled = { ...target, permalink: fill.permalink, platformState: fill.platformState, updatedAt: fill.at }
        posts.put(key.workspaceId, key.postId, withTarget(aggregate, filled, fill.at))
        storeCredentials(key.workspaceId, held.accountId, fill.credentials)
        return true
      }),

    deferPermalink: (key, owner, deferral) =>
      Effect.sync(() => {
        const held = heldPermalink(key, owner)
        if (held === undefined) return false
        pending.set(pendingKey(key.workspaceId, key.targetId), {
          ...held,
          asked: held.asked + 1,
          askAt: deferral.askAt,
          leaseOwner: null,
          leaseUntil: null
        })
        storeCredentials(key.workspaceId, held.accountId, deferral.credentials)
        return true
      }),

    abandonPermalink: (key, owner, credentials) =>
      Effect.sync(() => {
        const held = heldPermalink(key, owner)
        if (held === undefined) return false
        pending.delete(pendingKey(key.workspaceId, key.targetId))
        storeCredentials(key.workspaceId, held.accountId, credentials)
        return true
      }),

    renewLeases: (owner, at, leaseUntil, only) =>
      Effect.sync(() => {
        const ids: Array<string> = []
        const named = only === undefined ? undefined : new Set(only)
        for (const aggregate of [...posts.everywhere()]) {
          for (const target of aggregate.targets) {
            if (target.leaseOwner !== owner || (named !== undefined && !named.has(target.id))) continue
            putTarget({ ...target, leaseUntil: Math.max(leaseUntil, at) })
            ids.push(target.id)
          }
        }
        return ids
      }),

    releaseTargets: (owner) =>
      Effect.sync(() => {
        let released = 0
        for (const aggregate of [...posts.everywhere()]) {
          for (const target of aggregate.targets) {
            if (target.leaseOwner !== owner) continue
            putTarget({ ...target, leaseOwner: null, leaseUntil: null })
            released++
          }
        }
        return released
      }),

    updateAccountCredentials: (workspaceId, accountId, credentials) =>
      Effect.sync(() => {
        const account = accounts.get(workspaceId, accountId)
        if (account !== undefined) accounts.put(workspaceId, accountId, { ...account, credentials })
      })
  }
}

/**
 * The in-memory publishing store, over the tables of `MemoryStore.layer`.
 *
 * @example
 * ```ts
 * const Engine = MemoryPublishingStore.layer.pipe(Layer.provideMerge(MemoryStore.layer))
 * ```
 */
export const layer: Layer.Layer<PublishingStore, never, MemoryState> = Layer.effect(PublishingStore)(
  MemoryState.useSync(make)
)
