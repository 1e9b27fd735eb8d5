/**
 * The `ConnectStore` on SQL (PostgreSQL and the embedded PGlite): connect links, connections
 * and the token refresh queue. Rows are decoded with one `Schema` per row type. New accounts
 * are written through the `Store` inside the same transaction as their connection, their events
 * and the link's completion. Refreshes are claimed with `FOR UPDATE SKIP LOCKED` and a lease.
 *
 * @since 0.2.0
 */

import type { Ids } from "@postwire/domain"
import {
  type AccountConnectionRecord,
  type ConnectLinkRecord,
  ConnectStore,
  type ConnectStoreShape,
  finishedPostStatuses,
  type OutboxEvent,
  Store,
} from "@postwire/core"
import { Data, Effect, Layer, Option } from "effect"
import { SqlClient, } from "effect/sql"
import { connectionFromRow, linkFromRow } from "./internal/Rows.ts"
import { insertEvents as insertQueuedEvents, operations } from "./internal/SqlToolkit.ts"

/** Rolls a transaction back when what it changes is no longer as expected. */
class Unchanged extends Data.TaggedError("Unchanged")<{}> {}

const linkRow = (link: ConnectLinkRecord) => ({
  workspace_id: link.workspaceId,
  id: link.id,
  profile_id: link.profileId,
  platform: link.platform,
  sandbox: link.sandbox,
  redirect_url: link.redirectUrl,
  account_id: link.accountId,
  token_hash: link.tokenHash,
  state_hash: link.stateHash,
  code_verifier: link.codeVerifier,
  pending_choice: link.pendingChoice,
  expires_at: link.expiresAt,
  completed_at: link.completedAt,
  account_ids: JSON.stringify(link.accountIds),
  created_by: link.createdBy,
  created_at: link.createdAt
})

const connectionRow = (c: AccountConnectionRecord) => ({
  workspace_id: c.workspaceId,
  account_id: c.accountId,
  platform: c.platform,
  sandbox: c.sandbox,
  external_id: c.externalId,
  grant_id: c.grantId,
  display_name: c.displayName,
  avatar_url: c.avatarUrl,
  scopes: JSON.stringify(c.scopes),
  connected_at: c.connectedAt,
  token_expires_at: c.tokenExpiresAt,
  refresh_expires_at: c.refreshExpiresAt,
  privacy_level_options: c.privacyLevelOptions === null ? null : JSON.stringify(c.privacyLevelOptions),
  max_video_post_duration_sec: c.maxVideoPostDurationSec,
  refresh_at: c.refreshAt,
  refresh_failures: c.refreshFailures,
  lease_owner: c.leaseOwner,
  lease_until: c.leaseUntil,
  reconnect_reason: c.reconnectReason === null ? null : JSON.stringify(c.reconnectReason),
  disconnected_at: c.disconnectedAt
})

const connectionColumns = Object.keys(connectionRow({} as AccountConnectionRecord)).filter(
  (column) => column !== "workspace_id" && column !== "account_id"
)


/** Builds the connect store on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<ConnectStoreShape, never, SqlClient.SqlClient | Store> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const store = yield* Store

  const operation = operations("ConnectStore")

  /** Runs `effect` in a transaction; `Unchanged` rolls it back and answers false. */
  const transaction = <E, R>(effect: Effect.Effect<void, E | Unchanged, R>) =>
    sql.withTransaction(effect).pipe(
      Effect.as(true),
      Effect.catchTag("Unchanged", () => Effect.succeed(false))
    )

  const insertEvents = (events: ReadonlyArray<OutboxEvent>) => insertQueuedEvents(sql, events)

  const findLinkBySecret = (hash: string, kind: "token" | "state") =>
    sql`SELECT l.* FROM connect_link_secrets s
        JOIN connect_links l ON l.workspace_id = s.workspace_id AND l.id = s.link_id
        WHERE s.secret_hash = ${hash} AND s.kind = ${kind}`.pipe(
      Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(linkFromRow(rows[0]))))
    )

  /** Locks an open link; fails `Unchanged` when it is completed or gone. */
  const lockOpenLink = (workspaceId: string, linkId: string) =>
    Effect.gen(function* () {
      const rows = yield* sql`SELECT id FROM connect_links
        WHERE workspace_id = ${workspaceId} AND id = ${linkId} AND completed_at IS NULL FOR UPDATE`
      if (rows.length === 0) return yield* new Unchanged()
    })

  /** Ends a link's authorization in progress: its state is no longer found. */
  const forgetState = (workspaceId: string, linkId: string) =>
    sql`DELETE FROM connect_link_secrets WHERE workspace_id = ${workspaceId} AND link_id = ${linkId} AND kind = 'state'`

  /** Locks a connection `owner` holds; fails `Unchanged` when it does not. */
  const lockHeld = (workspaceId: string, accountId: string, owner: string) =>
    Effect.gen(function* () {
      const rows = yield* sql`SELECT account_id FROM account_connections
        WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND lease_owner = ${owner} FOR UPDATE`
      if (rows.length === 0) return yield* new Unchanged()
    })

  const shape: ConnectStoreShape = {
    createLink: (link) =>
      operation("createLink")(
        sql.withTransaction(
          Effect.all(
            [
              sql`INSERT INTO connect_links ${sql.insert(linkRow(link))}`,
              sql`INSERT INTO connect_link_secrets ${sql.insert({
                secret_hash: link.tokenHash,
                workspace_id: link.workspaceId,
                link_id: link.id,
                kind: "token"
              })}`
            ],
            { discard: true }
          )
        )
      ),

    findLinkByToken: (tokenHash) => operation("findLinkByToken")(findLinkBySecret(tokenHash, "token")),

    findLinkByState: (stateHash) => operation("findLinkByState")(findLinkBySecret(stateHash, "state")),

    startAuthorization: (workspaceId, linkId, stateHash, codeVerifier) =>
      operation("startAuthorization")(
        transaction(
          Effect.gen(function* () {
            yield* lockOpenLink(workspaceId, linkId)
            yield* forgetState(workspaceId, linkId)
            yield* sql`INSERT INTO connect_link_secrets ${sql.insert({
              secret_hash: stateHash,
              workspace_id: workspaceId,
              link_id: linkId,
              kind: "state"
            })}`
            yield* sql`UPDATE connect_links SET state_hash = ${stateHash}, code_verifier = ${codeVerifier}, pending_choice = NULL
              WHERE workspace_id = ${workspaceId} AND id = ${linkId}`
          })
        )
      ),

    savePendingChoice: (workspaceId, linkId, pendingChoice) =>
      operation("savePendingChoice")(
        sql`UPDATE connect_links SET pending_choice = ${pendingChoice}
            WHERE workspace_id = ${workspaceId} AND id = ${linkId} AND completed_at IS NULL RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0)
        )
      ),

    completeLink: (workspaceId, linkId, at, accounts, events) =>
      operation("completeLink")(
        transaction(
          Effect.gen(function* () {
            yield* lockOpenLink(workspaceId, linkId)
            for (const { account, connection, mode } of accounts) {
              if (mode === "insert") {
                yield* store.createAccount(account)
                yield* sql`INSERT INTO account_connections ${sql.insert(connectionRow(connection))}`
              } else {
                yield* sql`UPDATE accounts SET status = ${account.status}, credentials = ${account.credentials},
                    handle = ${account.handle}, external_id = ${account.externalId}
                  WHERE workspace_id = ${workspaceId} AND id = ${account.id}`
                const row = connectionRow(connection)
                yield* sql`INSERT INTO account_connections ${sql.insert(row)}
                  ON CONFLICT (workspace_id, account_id) DO UPDATE SET ${sql.unsafe(
                    connectionColumns.map((column) => `${column} = EXCLUDED.${column}`).join(", ")
                  )}`
              }
            }
            yield* insertEvents(events)
            yield* forgetState(workspaceId, linkId)
            yield* sql`UPDATE connect_links SET completed_at = ${at}, account_ids = ${JSON.stringify(accounts.map((a) => a.account.id))},
                state_hash = NULL, code_verifier = NULL, pending_choice = NULL
              WHERE workspace_id = ${workspaceId} AND id = ${linkId}`
          })
        )
      ),

    closeLink: (workspaceId, linkId, at) =>
      operation("closeLink")(
        transaction(
          Effect.gen(function* () {
            yield* lockOpenLink(workspaceId, linkId)
            yield* forgetState(workspaceId, linkId)
            yield* sql`UPDATE connect_links SET completed_at = ${at}, state_hash = NULL, code_verifier = NULL, pending_choice = NULL
              WHERE workspace_id = ${workspaceId} AND id = ${linkId}`
          })
        )
      ),

    getConnection: (workspaceId, accountId) =>
      operation("getConnection")(
        sql`SELECT * FROM account_connections WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(connectionFromRow(rows[0]))))
        )
      ),

    getConnections: (workspaceId, accountIds) =>
      operation("getConnections")(
        accountIds.length === 0
          ? Effect.succeed([])
          : sql`SELECT * FROM account_connections WHERE workspace_id = ${workspaceId} AND ${sql.in("account_id", accountIds)}`.pipe(
              Effect.map((rows) => rows.map(connectionFromRow))
            )
      ),

    findConnectionByIdentity: (workspaceId, platform, sandbox, externalId) =>
      operation("findConnectionByIdentity")(
        sql`SELECT * FROM account_connections WHERE workspace_id = ${workspaceId} AND platform = ${platform}
            AND sandbox = ${sandbox} AND external_id = ${externalId}`.pipe(
          Effect.map((rows) => (rows.length === 0 ? Option.none() : Option.some(connectionFromRow(rows[0]))))
        )
      ),

    findConnectionsByGrant: (platform, grantId) =>
      operation("findConnectionsByGrant")(
        sql`SELECT * FROM account_connections WHERE platform = ${platform} AND grant_id = ${grantId}
            AND sandbox = false AND disconnected_at IS NULL
            ORDER BY workspace_id, account_id`.pipe(Effect.map((rows) => rows.map(connectionFromRow)))
      ),

    disconnectAccount: (workspaceId, accountId, at, events) =>
      operation("disconnectAccount")(
        transaction(
          Effect.gen(function* () {
            const changed = yield* sql`UPDATE accounts SET status = 'disconnected', credentials = NULL
              WHERE workspace_id = ${workspaceId} AND id = ${accountId} AND status <> 'disconnected' RETURNING id`
            if (changed.length === 0) return yield* new Unchanged()
            yield* sql`UPDATE account_connections SET disconnected_at = ${at}, refresh_at = NULL, lease_owner = NULL, lease_until = NULL
              WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
            yield* insertEvents(events)
          })
        )
      ),

    claimDueRefreshes: ({ at, leaseUntil, limit, owner }) =>
      operation("claimDueRefreshes")(
        sql.withTransaction(
          sql`UPDATE account_connections c SET lease_owner = ${owner}, lease_until = ${leaseUntil}
              FROM (
                SELECT c2.workspace_id, c2.account_id FROM account_connections c2
                JOIN accounts a ON a.workspace_id = c2.workspace_id AND a.id = c2.account_id
                WHERE c2.refresh_at IS NOT NULL AND c2.refresh_at <= ${at}
                  AND (c2.lease_until IS NULL OR c2.lease_until <= ${at})
                  AND a.status = 'connected'
                ORDER BY c2.refresh_at, c2.account_id
                LIMIT ${limit}
                FOR UPDATE OF c2 SKIP LOCKED
              ) due
              WHERE c.workspace_id = due.workspace_id AND c.account_id = due.account_id
              RETURNING c.*`
        ).pipe(
          Effect.map((rows) =>
            rows.map(connectionFromRow).sort((a, b) => (a.refreshAt ?? 0) - (b.refreshAt ?? 0) || (a.accountId < b.accountId ? -1 : 1))
          )
        )
      ),

    recordRefresh: ({ accountId, workspaceId }, owner, done) =>
      operation("recordRefresh")(
        transaction(
          Effect.gen(function* () {
            yield* lockHeld(workspaceId, accountId, owner)
            yield* sql`UPDATE account_connections SET token_expires_at = ${done.tokenExpiresAt},
                refresh_expires_at = ${done.refreshExpiresAt},
                scopes = ${done.scopes === null ? sql`scopes` : JSON.stringify(done.scopes)},
                refresh_at = ${done.refreshAt}, refresh_failures = 0, lease_owner = NULL, lease_until = NULL
              WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
            if (done.credentials !== undefined) {
              yield* sql`UPDATE accounts SET credentials = ${done.credentials} WHERE workspace_id = ${workspaceId} AND id = ${accountId}`
            }
            if (done.creator !== undefined) {
              yield* sql`UPDATE account_connections SET privacy_level_options = ${JSON.stringify(done.creator.privacyLevelOptions)},
                  max_video_post_duration_sec = ${done.creator.maxVideoPostDurationSec}
                WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
            }
          })
        )
      ),

    deferRefresh: ({ accountId, workspaceId }, owner, refreshAt, failures) =>
      operation("deferRefresh")(
        sql`UPDATE account_connections SET refresh_at = ${refreshAt}, refresh_failures = ${failures}, lease_owner = NULL, lease_until = NULL
            WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND lease_owner = ${owner} RETURNING account_id`.pipe(
          Effect.map((rows) => rows.length > 0)
        )
      ),

    refuseRefresh: ({ accountId, workspaceId }, owner, reason, events) =>
      operation("refuseRefresh")(
        transaction(
          Effect.gen(function* () {
            yield* lockHeld(workspaceId, accountId, owner)
            const changed = yield* sql`UPDATE accounts SET status = 'needs_reconnect'
              WHERE workspace_id = ${workspaceId} AND id = ${accountId} AND status = 'connected' RETURNING id`
            yield* sql`UPDATE account_connections SET refresh_at = NULL, lease_owner = NULL, lease_until = NULL
              WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
            if (changed.length > 0) {
              yield* sql`UPDATE account_connections SET reconnect_reason = ${JSON.stringify(reason)}
                WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}`
              yield* insertEvents(events)
            }
          })
        )
      ),

    postsWaitingOnAccount: (workspaceId, accountId) =>
      operation("postsWaitingOnAccount")(
        sql`SELECT DISTINCT post_id FROM targets
            WHERE workspace_id = ${workspaceId} AND account_id = ${accountId} AND status IN ('queued', 'scheduled')
            ORDER BY post_id`.pipe(Effect.map((rows) => rows.map((row) => String(row.post_id) as Ids.PostId)))
      ),

    deleteProfile: (workspaceId, profileId) =>
      operation("deleteProfile")(
        sql.withTransaction(
          Effect.gen(function* () {
            const found = yield* sql`SELECT id FROM profiles WHERE workspace_id = ${workspaceId} AND id = ${profileId} FOR UPDATE`
            if (found.length === 0) return { _tag: "NotFound" } as const
            const [live] = yield* sql`SELECT count(*) AS n FROM accounts
              WHERE workspace_id = ${workspaceId} AND profile_id = ${profileId} AND status <> 'disconnected'`
            const count = Number(live?.n ?? 0)
            if (count > 0) return { _tag: "HasAccounts", count } as const
            const unfinished = yield* sql`SELECT 1 FROM posts
              WHERE workspace_id = ${workspaceId} AND profile_id = ${profileId}
                AND NOT (${sql.in("status", finishedPostStatuses)}) LIMIT 1`
            if (unfinished.length > 0) return { _tag: "HasUnfinishedPosts" } as const
            yield* sql`DELETE FROM profiles WHERE workspace_id = ${workspaceId} AND id = ${profileId}`
            return { _tag: "Deleted" } as const
          })
        )
      ),

    renameProfile: (workspaceId, profileId, name) =>
      operation("renameProfile")(
        sql`UPDATE profiles SET name = ${name} WHERE workspace_id = ${workspaceId} AND id = ${profileId} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0)
        )
      )
  }
  return shape
})

/**
 * The connect store on the current `SqlClient`, beside the `Store` (which applies the
 * migrations first).
 *
 * @example
 * ```ts
 * const Stores = SqlConnectStore.layer.pipe(Layer.provideMerge(SqlStore.layer), Layer.provide(PgliteClient.layer({})))
 * ```
 */
export const layer: Layer.Layer<ConnectStore, never, SqlClient.SqlClient | Store> = Layer.effect(ConnectStore)(make)
