/**
 * The `ConnectStore` in memory, on the tables of the in-memory `Store` (`MemoryState`), so the
 * use-cases see one another's writes as in one database. Every method reads and writes in one
 * synchronous step: atomic without locks, like a transaction.
 *
 * @since 0.2.0
 */
import { Effect, Layer, Option } from "effect"
import type { OutboxEvent } from "../store/Outbox.ts"
import { eventKey, MemoryState, type MemoryTables, rowKey } from "./MemoryState.ts"
import { StoreError } from "../store/StoreError.ts"
import {
  type AccountConnectionRecord,
  type ConnectLinkRecord,
  ConnectStore,
  type ConnectStoreShape,
  finishedPostStatuses
} from "../accounts/ConnectStore.ts"

const key = rowKey

/** Builds the connect store over the tables of an in-memory `Store`. */
export const make = (tables: MemoryTables): ConnectStoreShape => {
  const { accounts, connectLinks, connections, posts, profiles, uniqueKeys } = tables

  const duplicate = (operation: string, k: string) =>
    Effect.fail(new StoreError({ operation, cause: new Error(`duplicate key ${k}`) }))

  const identityKey = (c: Pick<AccountConnectionRecord, "workspaceId" | "platform" | "sandbox" | "externalId">) =>
    key("connection", c.workspaceId, c.platform, String(c.sandbox), c.externalId)

  const appendEvents = (list: ReadonlyArray<OutboxEvent>) => tables.appendEvents(list)

  const findLink = (matches: (link: ConnectLinkRecord) => boolean) =>
    Effect.sync(() => {
      for (const link of connectLinks.everywhere()) if (matches(link)) return Option.some(link)
      return Option.none<ConnectLinkRecord>()
    })

  const openLink = (workspaceId: string, linkId: string) => {
    const link = connectLinks.get(workspaceId, linkId)
    return link === undefined || link.completedAt !== null ? undefined : link
  }

  const held = (workspaceId: string, accountId: string, owner: string) => {
    const connection = connections.get(workspaceId, accountId)
    return connection !== undefined && connection.leaseOwner === owner ? connection : undefined
  }

  const store: ConnectStoreShape = {
    createLink: (link) =>
      Effect.suspend(() => {
        if (uniqueKeys.has(key("connect_token", link.tokenHash))) return duplicate("createLink", link.tokenHash)
        return connectLinks.insert("createLink", link.workspaceId, link.id, link).pipe(
          Effect.tap(() => Effect.sync(() => uniqueKeys.add(key("connect_token", link.tokenHash))))
        )
      }),

    findLinkByToken: (tokenHash) => findLink((link) => link.tokenHash === tokenHash),

    findLinkByState: (stateHash) => findLink((link) => link.stateHash === stateHash),

    startAuthorization: (workspaceId, linkId, stateHash, codeVerifier) =>
      Effect.sync(() => {
        const link = openLink(workspaceId, linkId)
        if (link === undefined) return false
        connectLinks.put(workspaceId, linkId, { ...link, stateHash, codeVerifier, pendingChoice: null })
        return true
      }),

    savePendingChoice: (workspaceId, linkId, pendingChoice) =>
      Effect.sync(() => {
        const link = openLink(workspaceId, linkId)
        if (link === undefined) return false
        connectLinks.put(workspaceId, linkId, { ...link, pendingChoice })
        return true
      }),

    completeLink: (workspaceId, linkId, at, written, list) =>
      Effect.suspend(() => {
        const link = openLink(workspaceId, linkId)
        if (link === undefined) return Effect.succeed(false)
        const seen = new Set<string>()
        for (const { connection, mode } of written) {
          const k = identityKey(connection)
          const owner = connections.everywhere()
          let takenBy: string | undefined
          for (const c of owner) if (identityKey(c) === k) takenBy = c.accountId
          if (seen.has(k) || (takenBy !== undefined && (mode === "insert" || takenBy !== connection.accountId))) {
            return duplicate("completeLink", k)
          }
          seen.add(k)
        }
        for (const event of list) if (uniqueKeys.has(eventKey(event))) return duplicate("completeLink", event.id)
        for (const { account, mode } of written) {
          if (mode === "insert" && accounts.get(workspaceId, account.id) !== undefined) return duplicate("completeLink", account.id)
        }
        for (const { account, connection } of written) {
          accounts.put(workspaceId, account.id, account)
          connections.put(workspaceId, connection.accountId, connection)
        }
        appendEvents(list)
        connectLinks.put(workspaceId, linkId, {
          ...link,
          completedAt: at,
          accountIds: written.map((w) => w.account.id),
          stateHash: null,
          codeVerifier: null,
          pendingChoice: null
        })
        return Effect.succeed(true)
      }),

    closeLink: (workspaceId, linkId, at) =>
      Effect.sync(() => {
        const link = openLink(workspaceId, linkId)
        if (link === undefined) return false
        connectLinks.put(workspaceId, linkId, { ...link, completedAt: at, stateHash: null, codeVerifier: null, pendingChoice: null })
        return true
      }),

    getConnection: (workspaceId, accountId) => Effect.sync(() => Option.fromNullishOr(connections.get(workspaceId, accountId))),

    getConnections: (workspaceId, accountIds) =>
      Effect.sync(() => [...new Set(accountIds)].flatMap((id) => connections.get(workspaceId, id) ?? [])),

    findConnectionByIdentity: (workspaceId, platform, sandbox, externalId) =>
      Effect.sync(() =>
        Option.fromNullishOr(
          connections
            .all(workspaceId)
            .find((c) => c.platform === platform && c.sandbox === sandbox && c.externalId === externalId)
        )
      ),

    findConnectionsByGrant: (platform, grantId) =>
      Effect.sync(() =>
        [...connections.everywhere()]
          .filter((c) => c.platform === platform && c.grantId === grantId && !c.sandbox && c.disconnectedAt === null)
          .sort((a, b) => (a.workspaceId + a.accountId < b.workspaceId + b.accountId ? -1 : 1))
      ),

    disconnectAccount: (workspaceId, accountId, at, list) =>
      Effect.suspend(() => {
        const account = accounts.get(workspaceId, accountId)
        if (account === undefined || account.status === "disconnected") return Effect.succeed(false)
        for (const event of list) if (uniqueKeys.has(eventKey(event))) return duplicate("disconnectAccount", event.id)
        accounts.put(workspaceId, accountId, { ...account, status: "disconnected", credentials: null })
        const connection = connections.get(workspaceId, accountId)
        if (connection !== undefined) {
          connections.put(workspaceId, accountId, {
            ...connection,
            disconnectedAt: at,
            refreshAt: null,
            leaseOwner: null,
            leaseUntil: null
          })
        }
        appendEvents(list)
        return Effect.succeed(true)
      }),

    claimDueRefreshes: ({ at, leaseUntil, limit, owner }) =>
      Effect.sync(() => {
        const due = [...connections.everywhere()]
          .filter(
            (c) =>
              c.refreshAt !== null &&
              c.refreshAt <= at &&
              (c.leaseUntil === null || c.leaseUntil <= at) &&
              accounts.get(c.workspaceId, c.accountId)?.status === "connected"
          )
          .sort((a, b) => a.refreshAt! - b.refreshAt! || (a.accountId < b.accountId ? -1 : 1))
          .slice(0, limit)
        return due.map((c) => {
          const leased = { ...c, leaseOwner: owner, leaseUntil }
          connections.put(c.workspaceId, c.accountId, leased)
          return leased
        })
      }),

    recordRefresh: ({ accountId, workspaceId }, owner, done) =>
      Effect.sync(() => {
        const connection = held(workspaceId, accountId, owner)
        if (connection === undefined) return false
        connections.put(workspaceId, accountId, {
          ...connection,
          tokenExpiresAt: done.tokenExpiresAt,
          refreshExpiresAt: done.refreshExpiresAt,
          scopes: done.scopes ?? connection.scopes,
          ...(done.creator === undefined
            ? {}
            : {
                privacyLevelOptions: done.creator.privacyLevelOptions,
                maxVideoPostDurationSec: done.creator.maxVideoPostDurationSec
              }),
          refreshAt: done.refreshAt,
          refreshFailures: 0,
          leaseOwner: null,
          leaseUntil: null
        })
        const account = accounts.get(workspaceId, accountId)
        if (account !== undefined && done.credentials !== undefined) {
          accounts.put(workspaceId, accountId, { ...account, credentials: done.credentials })
        }
        return true
      }),

    deferRefresh: ({ accountId, workspaceId }, owner, refreshAt, failures) =>
      Effect.sync(() => {
        const connection = held(workspaceId, accountId, owner)
        if (connection === undefined) return false
        connections.put(workspaceId, accountId, {
          ...connection,
          refreshAt,
          refreshFailures: failures,
          leaseOwner: null,
          leaseUntil: null
        })
        return true
      }),

    refuseRefresh: ({ accountId, workspaceId }, owner, reason, list) =>
      Effect.suspend(() => {
        const connection = held(workspaceId, accountId, owner)
        if (connection === undefined) return Effect.succeed(false)
        const account = accounts.get(workspaceId, accountId)
        const connected = account?.status === "connected"
        if (connected) {
          for (const event of list) if (uniqueKeys.has(eventKey(event))) return duplicate("refuseRefresh", event.id)
        }
        connections.put(workspaceId, accountId, {
          ...connection,
          refreshAt: null,
          leaseOwner: null,
          leaseUntil: null,
          ...(connected ? { reconnectReason: reason } : {})
        })
        if (connected && account !== undefined) {
          accounts.put(workspaceId, accountId, { ...account, status: "needs_reconnect" })
          appendEvents(list)
        }
        return Effect.succeed(true)
      }),

    postsWaitingOnAccount: (workspaceId, accountId) =>
      Effect.sync(() =>
        posts
          .all(workspaceId)
          .filter(({ targets }) =>
            targets.some((t) => t.accountId === accountId && (t.status === "queued" || t.status === "scheduled"))
          )
          .map(({ post }) => post.id)
          .sort()
      ),

    deleteProfile: (workspaceId, profileId) =>
      Effect.sync(() => {
        if (profiles.get(workspaceId, profileId) === undefined) return { _tag: "NotFound" } as const
        const live = accounts.all(workspaceId).filter((a) => a.profileId === profileId && a.status !== "disconnected")
        if (live.length > 0) return { _tag: "HasAccounts", count: live.length } as const
        const unfinished = posts
          .all(workspaceId)
          .some(({ post }) => post.profileId === profileId && !finishedPostStatuses.includes(post.status))
        if (unfinished) return { _tag: "HasUnfinishedPosts" } as const
        profiles.delete(workspaceId, profileId)
        return { _tag: "Deleted" } as const
      }),

    renameProfile: (workspaceId, profileId, name) =>
      Effect.sync(() => {
        const profile = profiles.get(workspaceId, profileId)
        if (profile === undefined) return false
        profiles.put(workspaceId, profileId, { ...profile, name })
        return true
      })
  }
  return store
}

/** The connect store over the in-memory `Store`'s tables. */
export const layer: Layer.Layer<ConnectStore, never, MemoryState> = Layer.effect(ConnectStore)(
  MemoryState.useSync(make)
)
