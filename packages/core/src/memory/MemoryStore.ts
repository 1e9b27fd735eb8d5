/**
 * The `Store` in memory: for tests, examples and running the engine inside an app without a
 * database. It keeps the SQL store's semantics (the same conformance suite runs on both):
 * every method reads and writes in one synchronous step, so it is atomic without locks, and
 * what a primary key or unique index refuses in SQL fails here with a `StoreError` too.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { Ids } from "@postwire/domain"
import { eventKey, MemoryState, MemoryTables, rowKey as key } from "./MemoryState.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { PostAggregate } from "../store/PostStore.ts"
import type { Keyset } from "../store/Keyset.ts"
import type { QuotaUsage } from "../store/PostStore.ts"
import { Store, type StoreShape } from "../store/Store.ts"
import { StoreError, VersionConflict } from "../store/StoreError.ts"

export { Endpoints, MemoryState, MemoryTables, rowKey, Tables } from "./MemoryState.ts"

/** Builds an in-memory store over `tables` (empty ones by default). */
export const make = (tables: MemoryTables = new MemoryTables()): StoreShape => {
  const { workspaces, keysByHash, profiles, accounts, media, posts, events, settings, uniqueKeys } =
    tables

  const duplicate = (operation: string, key: string) =>
    Effect.fail(new StoreError({ operation, cause: new Error(`duplicate key ${key}`) }))

  const aggregateKeys = ({ approval, post, targets }: PostAggregate): ReadonlyArray<string> => [
    ...targets.map((target) => key("target", post.workspaceId, target.id)),
    ...(approval === null
      ? []
      : [key("approval", post.workspaceId, approval.id), key("approval_token", approval.tokenHash)])
  ]

  const eventKeys = (list: ReadonlyArray<OutboxEvent>) => list.map(eventKey)
  const appendEvents = (list: ReadonlyArray<OutboxEvent>) => tables.appendEvents(list)
  const takenKey = (keys: ReadonlyArray<string>) => tables.takenKey(keys)

  const insertPost = (aggregate: PostAggregate, list: ReadonlyArray<OutboxEvent>): Effect.Effect<void, StoreError> =>
    Effect.suspend(() => {
      const { post } = aggregate
      if (posts.get(post.workspaceId, post.id) !== undefined) return duplicate("insertPost", post.id)
      const keys = [...aggregateKeys(aggregate), ...eventKeys(list)]
      const taken = takenKey(keys)
      if (taken !== undefined) return duplicate("insertPost", taken)
      for (const k of aggregateKeys(aggregate)) uniqueKeys.add(k)
      posts.put(post.workspaceId, post.id, aggregate)
      appendEvents(list)
      return Effect.void
    })

  const usage = (workspaceId: string, accountId: string, from: number, to: number): QuotaUsage => {
    let used = 0
    let oldest: number | null = null
    for (const { post, targets } of posts.all(workspaceId)) {
      for (const target of targets) {
        if (target.accountId !== accountId || notCounted.has(target.status)) continue
        const instant = target.publishedAt ?? post.publishAt
        if (instant < from || instant >= to) continue
        used++
        if (oldest === null || instant < oldest) oldest = instant
      }
    }
    return { used, oldest }
  }

  return {
    createWorkspace: (workspace) =>
      Effect.suspend(() => {
        if (workspaces.has(workspace.id)) return duplicate("createWorkspace", workspace.id)
        workspaces.set(workspace.id, workspace)
        return Effect.void
      }),

    getWorkspace: (id) => Effect.sync(() => Option.fromNullishOr(workspaces.get(id))),

    updateWorkspace: (workspace) =>
      Effect.sync(() => {
        const current = workspaces.get(workspace.id)
        if (current === undefined) return false
        workspaces.set(workspace.id, { ...workspace, createdAt: current.createdAt })
        return true
      }),

    countWorkspaces: () => Effect.sync(() => workspaces.size),

    createApiKey: (apiKey) =>
      Effect.suspend(() => {
        const taken = takenKey([key("api_key", apiKey.workspaceId, apiKey.id)])
        if (taken !== undefined) return duplicate("createApiKey", taken)
        if (keysByHash.has(apiKey.hash)) return duplicate("createApiKey", apiKey.hash)
        uniqueKeys.add(key("api_key", apiKey.workspaceId, apiKey.id))
        keysByHash.set(apiKey.hash, apiKey)
        return Effect.void
      }),

    findApiKeyByHash: (hash) => Effect.sync(() => Option.fromNullishOr(keysByHash.get(hash))),

    createProfile: (profile) => profiles.insert("createProfile", profile.workspaceId, profile.id, profile),

    getProfile: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(profiles.get(workspaceId, id))),

    listProfiles: (workspaceId, after, limit) =>
      Effect.sync(() => newestFirst(profiles.all(workspaceId), (profile) => profile.createdAt, after, limit)),

    createAccount: (account) => accounts.insert("createAccount", account.workspaceId, account.id, account),

    getAccount: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(accounts.get(workspaceId, id))),

    getAccounts: (workspaceId, ids) =>
      Effect.sync(() => [...new Set(ids)].flatMap((id) => accounts.get(workspaceId, id) ?? [])),

    listAccounts: (workspaceId, filter, after, limit) =>
      Effect.sync(() =>
        newestFirst(
          accounts
            .all(workspaceId)
            .filter(
              (account) =>
                (filter.profileId === undefined || account.profileId === filter.profileId) &&
                (filter.platform === undefined || account.platform === filter.platform)
            ),
          (account) => account.createdAt,
          after,
          limit
        )
      ),

    updateAccountStatus: (workspaceId, id, status, list) =>
      Effect.suspend(() => {
        const taken = takenKey(eventKeys(list))
        if (taken !== undefined) return duplicate("updateAccountStatus", taken)
        const account = accounts.get(workspaceId, id)
        if (account !== undefined) accounts.put(workspaceId, id, { ...account, status })
        appendEvents(list)
        return Effect.void
      }),

    // The lifecycle's defaults, as the SQL store writes them.
    createMedia: (item) =>
      media.insert("createMedia", item.workspaceId, item.id, {
        ...item,
        status: item.status ?? "ready",
        codec: item.codec ?? null,
        error: item.error ?? null,
        sourceUrl: item.sourceUrl ?? null,
        updatedAt: item.updatedAt ?? item.createdAt
      }),

    getMedia: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(media.get(workspaceId, id))),

    getMediaItems: (workspaceId, ids) =>
      Effect.sync(() => [...new Set(ids)].flatMap((id) => media.get(workspaceId, id) ?? [])),

    insertPost,

    afterCommit: (effect) => effect,

    insertPostWithinQuota: (aggregate, list, caps) =>
      Effect.suspend(() => {
        // Counted and inserted in one synchronous step: nothing else runs in between.
        const full = caps.find((cap) => usage(aggregate.post.workspaceId, cap.accountId, cap.from, cap.to).used + 1 > cap.limit)
        if (full !== undefined) return Effect.succeed(Option.some(full.accountId))
        return insertPost(aggregate, list).pipe(Effect.as(Option.none<Ids.AccountId>()))
      }),

    getPost: (workspaceId, id) => Effect.sync(() => Option.fromNullishOr(posts.get(workspaceId, id))),

    savePost: (aggregate, list) =>
      Effect.suspend((): Effect.Effect<void, StoreError | VersionConflict> => {
        const { post } = aggregate
        const stored = posts.get(post.workspaceId, post.id)
        if (stored === undefined || stored.post.version !== post.version - 1) {
          return Effect.fail(new VersionConflict({ postId: post.id }))
        }
        const previous = aggregateKeys(stored)
        for (const k of previous) uniqueKeys.delete(k)
        const taken = takenKey([...aggregateKeys(aggregate), ...eventKeys(list)])
        if (taken !== undefined) {
          for (const k of previous) uniqueKeys.add(k)
          return duplicate("savePost", taken)
        }
        for (const k of aggregateKeys(aggregate)) uniqueKeys.add(k)
        posts.put(post.workspaceId, post.id, aggregate)
        appendEvents(list)
        return Effect.void
      }),

    findApprovalByTokenHash: (tokenHash) =>
      Effect.sync(() => {
        for (const aggregate of posts.everywhere()) {
          if (aggregate.approval?.tokenHash === tokenHash) {
            return Option.some({ workspaceId: aggregate.post.workspaceId, postId: aggregate.post.id })
          }
        }
        return Option.none()
      }),

    listPosts: (workspaceId, filter, after, limit) =>
      Effect.sync(() =>
        newestFirst(
          posts
            .all(workspaceId)
            .filter(
              ({ post, targets }) =>
                (filter.status === undefined || post.status === filter.status) &&
                (filter.profileId === undefined || post.profileId === filter.profileId) &&
                (filter.platform === undefined || targets.some((target) => target.platform === filter.platform)) &&
                (filter.from === undefined || post.publishAt >= filter.from) &&
                (filter.to === undefined || post.publishAt < filter.to)
            ),
          ({ post }) => post.publishAt,
          after,
          limit,
          ({ post }) => post.id
        )
      ),

    countQuotaUsage: (workspaceId, accountId, from, to) => Effect.sync(() => usage(workspaceId, accountId, from, to)),

    listEvents: (workspaceId) => Effect.sync(() => [...(events.get(workspaceId) ?? [])]),

    ensureSetting: (name, value) =>
      Effect.sync(() => {
        const stored = settings.get(name)
        if (stored !== undefined) return stored
        settings.set(name, value)
        return value
      }),

    readSetting: (name) => Effect.sync(() => Option.fromNullishOr(settings.get(name))),

    deleteSetting: (name, value) =>
      Effect.sync(() => {
        if (settings.get(name) !== value) return false
        settings.delete(name)
        return true
      }),

    listWorkspaces: () => Effect.sync(() => [...workspaces.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))),

    listApiKeys: (workspaceId) =>
      Effect.sync(() =>
        [...keysByHash.values()]
          .filter((apiKey) => apiKey.workspaceId === workspaceId)
          .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
      ),

    revokeApiKey: (workspaceId, id, at) =>
      Effect.sync(() => {
        const found = [...keysByHash.values()].find((apiKey) => apiKey.workspaceId === workspaceId && apiKey.id === id)
        if (found === undefined) return Option.none()
        const revoked = found.revokedAt === null ? { ...found, revokedAt: at } : found
        keysByHash.set(found.hash, revoked)
        return Option.some(revoked)
      })
  }
}

/**
 * An empty in-memory `Store`, fresh for every build of the layer.
 *
 * @example
 * ```ts
 * const program = Effect.gen(function* () {
 *   const store = yield* Store
 *   return yield* store.countWorkspaces()
 * })
 * Effect.runPromise(Effect.provide(program, MemoryStore.layer))
 * ```
 */
export const layer: Layer.Layer<Store | MemoryState> = Layer.effectContext(
  Effect.sync(() => {
    const tables = new MemoryTables()
    return Context.make(MemoryState, tables).pipe(Context.add(Store, make(tables)))
  })
)


const notCounted: ReadonlySet<string> = new Set(["cancelled", "rejected", "failed"])

/** Orders by `(sortKey desc, id desc)` like the SQL keyset queries, after `after`, up to `limit`. */
const newestFirst = <A>(
  rows: ReadonlyArray<A>,
  sortKey: (row: A) => number,
  after: Keyset | undefined,
  limit: number,
  idOf: (row: A) => string = (row) => (row as { readonly id: string }).id
): ReadonlyArray<A> =>
  rows
    .filter((row) => {
      if (after === undefined) return true
      const k = sortKey(row)
      return k < after.sortKey || (k === after.sortKey && idOf(row) < after.id)
    })
    .sort((a, b) => sortKey(b) - sortKey(a) || compareDesc(idOf(a), idOf(b)))
    .slice(0, limit)

const compareDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)
