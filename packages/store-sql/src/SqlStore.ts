/**
 * The `Store` over any PostgreSQL `SqlClient`: PostgreSQL itself through `@effect/sql-pg`, or
 * the embedded PGlite through {@link PgliteClient}. Its layer applies the migrations first.
 *
 * Every statement names `workspace_id` (except the global key and token lookups), writes that
 * belong together share one transaction, and every database failure becomes a `StoreError`
 * naming the operation.
 *
 * @since 0.1.0
 */

import type { Ids } from "@postwire/domain"
import {
  type AccountRecord,
  type ApprovalRecord,
  type MediaRecord,
  type OutboxEvent,
  type PostAggregate,
  type PostRecord,
  type QuotaCap,
  type QuotaUsage,
  Store,
  type StoreShape,
  type TargetRecord,
  VersionConflict,
} from "@postwire/core"
import { Array as Arr, Data, Effect, type Layer, Option } from "effect"
import { SqlClient, } from "effect/sql"
import {
  accountFromRow,
  apiKeyFromRow,
  approvalFromRow,
  eventFromRow,
  mediaFromRow,
  postFromRow,
  profileFromRow,
  targetFromRow,
  workspaceFromRow
} from "./internal/Rows.ts"
import {
  eventRowsEntries,
  insertEvents as insertQueuedEvents,
  migratedLayer,
  operations,
  toNumber,
  toNumberOrNull
} from "./internal/SqlToolkit.ts"
import type { Statement } from "effect/sql"

type Row = Readonly<Record<string, unknown>>

/** A create's cap is full: rolls its transaction (or savepoint) back, then answered as the account. */
class CapFull extends Data.TaggedError("CapFull")<{ readonly accountId: Ids.AccountId }> {}

/** Builds the `Store` on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<StoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation = operations("Store")

  const insertEvents = (events: ReadonlyArray<OutboxEvent>) => insertQueuedEvents(sql, events)

  const upsertApproval = (workspaceId: string, postId: string, approval: ApprovalRecord | null) =>
    approval === null
      ? Effect.all([
        sql`DELETE FROM approval_tokens WHERE workspace_id = ${workspaceId} AND post_id = ${postId}`,
        sql`DELETE FROM approvals WHERE workspace_id = ${workspaceId} AND post_id = ${postId}`
      ], { discard: true })
      : Effect.all([
        sql`DELETE FROM approval_tokens
            WHERE workspace_id = ${workspaceId} AND post_id = ${postId} AND token_hash <> ${approval.tokenHash}`,
        sql`INSERT INTO approval_tokens ${sql.insert(approvalTokenRow(approval))}
            ON CONFLICT (token_hash) DO UPDATE SET approval_id = EXCLUDED.approval_id
            WHERE approval_tokens.workspace_id = EXCLUDED.workspace_id AND approval_tokens.post_id = EXCLUDED.post_id`,
        sql`INSERT INTO approvals ${sql.insert(approvalRow(approval))}
            ON CONFLICT (workspace_id, post_id) DO UPDATE SET ${sql.unsafe(excludedColumns(approvalColumns))}`
      ], { discard: true })

  const upsertTargets = (post: PostRecord, targets: ReadonlyArray<TargetRecord>) =>
    Effect.all([
      sql`DELETE FROM targets WHERE workspace_id = ${post.workspaceId} AND post_id = ${post.id}
          AND NOT (${sql.in("id", targets.map((target) => target.id))})`,
      Arr.isReadonlyArrayNonEmpty(targets)
        ? sql`INSERT INTO targets ${sql.insert(targetRows(post, targets))}
              ON CONFLICT (workspace_id, id) DO UPDATE SET ${sql.unsafe(excludedColumns(targetColumns))}`
        : Effect.void
    ], { discard: true })

  /**
   * The rows of `posts` (a statement selecting them) each with its targets, in position order,
   * and its approval, as JSON columns `page_targets` and `page_approval`: one statement.
   * `json`, not `jsonb`: the page's rows leave the database as text either way, and building
   * `jsonb` first cost a GET 1.8x the database time on PostgreSQL and 1.3x the whole request on
   * the embedded database; one row per target (a join, no JSON) was cheaper still for
   * PostgreSQL but dearer for the server and the embedded database (docs/performance.md).
   */
  const postsWithTargets = (posts: Statement.Fragment) =>
    sql`SELECT page.*,
        (SELECT json_agg(t ORDER BY t.position) FROM targets t
          WHERE t.workspace_id = page.workspace_id AND t.post_id = page.id) AS page_targets,
        (SELECT row_to_json(a) FROM approvals a
          WHERE a.workspace_id = page.workspace_id AND a.post_id = page.id) AS page_approval
      FROM (${posts}) AS page`

  const aggregateFromPageRow = (row: Row): PostAggregate => ({
    post: postFromRow(row),
    targets: ((row.page_targets ?? []) as ReadonlyArray<Row>).map(targetFromRow),
    approval: row.page_approval === null || row.page_approval === undefined ? null : approvalFromRow(row.page_approval as Row)
  })

  // One statement, one round trip: the post, its targets, its approval and its events, each a
  // data-modifying WITH (all run, in one snapshot; the foreign keys are checked at its end).
  const insertAggregate = ({ approval, post, targets }: PostAggregate, events: ReadonlyArray<OutboxEvent>) =>
    sql`WITH ${sql.csv([
      sql`new_post AS (INSERT INTO posts ${sql.insert(postRow(post))})`,
      ...(Arr.isReadonlyArrayNonEmpty(targets)
        ? [sql`new_targets AS (INSERT INTO targets ${sql.insert(targetRows(post, targets))})`]
        : []),
      ...(approval === null
        ? []
        : [
          sql`new_approval AS (INSERT INTO approvals ${sql.insert(approvalRow(approval))})`,
          sql`new_token AS (INSERT INTO approval_tokens ${sql.insert(approvalTokenRow(approval))})`
        ]),
      ...(Arr.isReadonlyArrayNonEmpty(events)
        ? eventRowsEntries(sql, "new_events", events)
        : [])
    ])} SELECT 1`.pipe(Effect.asVoid)

  /**
   * Locks the caps' accounts and counts each cap's window (the post itself left out): the
   * account of the first cap the post would exceed, or undefined. Runs in a transaction.
   */
  const fullCap = (aggregate: PostAggregate, caps: ReadonlyArray<QuotaCap>) =>
    Effect.gen(function* () {
      const workspaceId = aggregate.post.workspaceId
      const accountIds = [...new Set(caps.map((cap) => cap.accountId))].sort()
      // Locking the accounts (in one order, so two creates cannot deadlock) serializes every
      // capped insert on them: the count below sees what the other committed. `NO KEY`: a row
      // referring to the account (a foreign key's share lock) is not held up.
      if (accountIds.length > 0) {
        yield* sql`SELECT id FROM accounts WHERE workspace_id = ${workspaceId} AND ${sql.in("id", accountIds)}
          ORDER BY id FOR NO KEY UPDATE`
      }
      if (!Arr.isReadonlyArrayNonEmpty(caps)) return undefined
      // A statement of its own, after the locks: its snapshot sees what the holders committed.
      const [row] = yield* sql`SELECT ${sql.csv(caps.map((cap, i) =>
        sql`(SELECT count(*) FROM targets
              WHERE workspace_id = ${workspaceId} AND account_id = ${cap.accountId}
                AND status NOT IN ('cancelled', 'rejected', 'failed')
                AND quota_at >= ${cap.from} AND quota_at < ${cap.to}
                AND post_id <> ${aggregate.post.id}) AS ${sql(`cap${i}`)}`
      ))}`
      const full = caps.find((cap, i) => cap.count === undefined && toNumber(row![`cap${i}`]) + 1 > cap.limit)
      if (full !== undefined) return full.accountId
      // Caps that count themselves (a kind of post), under the same locks and in this transaction.
      for (const cap of caps) {
        if (cap.count !== undefined && (yield* cap.count) + 1 > cap.limit) return cap.accountId
      }
      return undefined
    })

  // One range of `targets_quota`: the rows of the window, however long the account's history.
  const quotaUsage = (workspaceId: string, accountId: string, from: number, to: number) =>
    sql`SELECT count(*) AS used, min(quota_at) AS oldest FROM targets
        WHERE workspace_id = ${workspaceId} AND account_id = ${accountId}
          AND status NOT IN ('cancelled', 'rejected', 'failed')
          AND quota_at >= ${from} AND quota_at < ${to}`.pipe(
      Effect.map(([row]): QuotaUsage => ({ used: toNumber(row!.used), oldest: toNumberOrNull(row!.oldest) }))
    )

  const store: StoreShape = {
    createWorkspace: (workspace) =>
      operation("createWorkspace")(
        sql`INSERT INTO workspaces ${sql.insert({
          id: workspace.id,
          name: workspace.name,
          allowed_redirect_domains: JSON.stringify(workspace.allowedRedirectDomains),
          created_at: workspace.createdAt
        })}`.pipe(Effect.asVoid)
      ),

    getWorkspace: (id) =>
      operation("getWorkspace")(
        sql`SELECT * FROM workspaces WHERE id = ${id}`.pipe(Effect.map((rows) => firstAs(rows, workspaceFromRow)))
      ),

    updateWorkspace: (workspace) =>
      operation("updateWorkspace")(
        sql`UPDATE workspaces
            SET name = ${workspace.name}, allowed_redirect_domains = ${JSON.stringify(workspace.allowedRedirectDomains)}
            WHERE id = ${workspace.id}
            RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))
      ),

    countWorkspaces: () =>
      operation("countWorkspaces")(
        sql`SELECT count(*) AS n FROM workspaces`.pipe(Effect.map((rows) => toNumber(rows[0]!.n)))
      ),

    createApiKey: (key) =>
      operation("createApiKey")(
        sql.withTransaction(
          Effect.all([
            sql`INSERT INTO api_keys ${sql.insert({
              workspace_id: key.workspaceId,
              id: key.id,
              kind: key.kind,
              scopes: JSON.stringify(key.scopes),
              approval_links: key.approvalLinks,
              key_hash: key.hash,
              last4: key.last4,
              created_at: key.createdAt,
              revoked_at: key.revokedAt
            })}`,
            sql`INSERT INTO api_key_hashes ${sql.insert({
              key_hash: key.hash,
              workspace_id: key.workspaceId,
              key_id: key.id
            })}`
          ], { discard: true })
        )
      ),

    findApiKeyByHash: (hash) =>
      operation("findApiKeyByHash")(
        // One round trip: the global pointer and the key it points at, joined.
        sql`SELECT k.* FROM api_key_hashes h
            JOIN api_keys k ON k.workspace_id = h.workspace_id AND k.id = h.key_id
            WHERE h.key_hash = ${hash}`.pipe(Effect.map((rows) => firstAs(rows, apiKeyFromRow)))
      ),

    createProfile: (profile) =>
      operation("createProfile")(
        sql`INSERT INTO profiles ${sql.insert({
          workspace_id: profile.workspaceId,
          id: profile.id,
          name: profile.name,
          created_at: profile.createdAt
        })}`.pipe(Effect.asVoid)
      ),

    getProfile: (workspaceId, id) =>
      operation("getProfile")(
        sql`SELECT * FROM profiles WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.map((rows) => firstAs(rows, profileFromRow))
        )
      ),

    listProfiles: (workspaceId, after, limit) =>
      operation("listProfiles")(
        sql`SELECT * FROM profiles
            WHERE ${sql.and([
              sql`workspace_id = ${workspaceId}`,
              ...(after === undefined ? [] : [sql`(created_at, id) < (${after.sortKey}, ${after.id})`])
            ])}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(profileFromRow)))
      ),

    createAccount: (account) =>
      operation("createAccount")(sql`INSERT INTO accounts ${sql.insert(accountRow(account))}`.pipe(Effect.asVoid)),

    getAccount: (workspaceId, id) =>
      operation("getAccount")(
        sql`SELECT * FROM accounts WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.map((rows) => firstAs(rows, accountFromRow))
        )
      ),

    getAccounts: (workspaceId, ids) =>
      operation("getAccounts")(
        ids.length === 0
          ? Effect.succeed([])
          : sql`SELECT * FROM accounts WHERE workspace_id = ${workspaceId} AND ${sql.in("id", ids)}`.pipe(
            Effect.map((rows) => inRequestedOrder(ids, rows.map(accountFromRow)))
          )
      ),

    listAccounts: (workspaceId, filter, after, limit) =>
      operation("listAccounts")(
        sql`SELECT * FROM accounts
            WHERE ${sql.and([
              sql`workspace_id = ${workspaceId}`,
              ...(filter.profileId === undefined ? [] : [sql`profile_id = ${filter.profileId}`]),
              ...(filter.platform === undefined ? [] : [sql`platform = ${filter.platform}`]),
              ...(after === undefined ? [] : [sql`(created_at, id) < (${after.sortKey}, ${after.id})`])
            ])}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(accountFromRow)))
      ),

    updateAccountStatus: (workspaceId, id, status, events) =>
      operation("updateAccountStatus")(
        sql.withTransaction(
          Effect.all([
            sql`UPDATE accounts SET status = ${status} WHERE workspace_id = ${workspaceId} AND id = ${id}`,
            insertEvents(events)
          ], { discard: true })
        )
      ),

    createMedia: (media) =>
      operation("createMedia")(sql`INSERT INTO media ${sql.insert(mediaRow(media))}`.pipe(Effect.asVoid)),

    getMedia: (workspaceId, id) =>
      operation("getMedia")(
        sql`SELECT * FROM media WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.map((rows) => firstAs(rows, mediaFromRow))
        )
      ),

    getMediaItems: (workspaceId, ids) =>
      operation("getMediaItems")(
        ids.length === 0
          ? Effect.succeed([])
          : sql`SELECT * FROM media WHERE workspace_id = ${workspaceId} AND ${sql.in("id", ids)}`.pipe(
            Effect.map((rows) => inRequestedOrder(ids, rows.map(mediaFromRow)))
          )
      ),

    insertPost: (aggregate, events) => operation("insertPost")(sql.withTransaction(insertAggregate(aggregate, events))),

    afterCommit: (effect) => sql.afterCommit(effect),

    // The accounts' lock serializes the capped inserts on an account, and is held only from the
    // count to the commit: the post is written first, unlocked (the heaviest of its statements),
    // then the accounts are locked and the window counted without the post itself, and a full
    // cap rolls the insert back. (It used to lock first, so creates to one account also waited
    // for each other's inserts.) Inside the caller's transaction (a create under an
    // `Idempotency-Key`) this is a savepoint: a batch item that fails is rolled back alone, and
    // the batch's other items stay.
    insertPostWithinQuota: (aggregate, events, caps) =>
      operation("insertPostWithinQuota")(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* insertAggregate(aggregate, events)
            const full = yield* fullCap(aggregate, caps)
            return full === undefined ? Option.none<Ids.AccountId>() : yield* Effect.fail(new CapFull({ accountId: full }))
          })
        ).pipe(Effect.catchTag("CapFull", (full) => Effect.succeed(Option.some(full.accountId))))
      ),

    getPost: (workspaceId, id) =>
      operation("getPost")(
        Effect.gen(function* () {
          const [row] = yield* postsWithTargets(sql`SELECT * FROM posts WHERE workspace_id = ${workspaceId} AND id = ${id}`)
          return row === undefined ? Option.none() : Option.some(aggregateFromPageRow(row))
        })
      ),

    savePost: ({ approval, post, targets }, events) =>
      operation("savePost")(
        sql.withTransaction(
          Effect.gen(function* () {
            const updated = yield* sql`UPDATE posts SET
                profile_id = ${post.profileId},
                caption = ${post.caption},
                media = ${JSON.stringify(post.media)},
                scheduled_at = ${post.scheduledAt},
                ai_generated = ${post.aiGenerated},
                approval_mode = ${post.approvalMode},
                notify = ${jsonOrNull(post.notify)},
                status = ${post.status},
                publish_at = ${post.publishAt},
                created_at = ${post.createdAt},
                updated_at = ${post.updatedAt},
                version = ${post.version}
              WHERE workspace_id = ${post.workspaceId} AND id = ${post.id} AND version = ${post.version - 1}
              RETURNING id`
            if (updated.length === 0) return yield* new VersionConflict({ postId: post.id })
            yield* upsertTargets(post, targets)
            yield* upsertApproval(post.workspaceId, post.id, approval)
            yield* insertEvents(events)
          })
        )
      ),

    findApprovalByTokenHash: (tokenHash) =>
      operation("findApprovalByTokenHash")(
        sql`SELECT workspace_id, post_id FROM approval_tokens WHERE token_hash = ${tokenHash}`.pipe(
          Effect.map(([row]) =>
            row === undefined
              ? Option.none()
              : Option.some({ workspaceId: String(row.workspace_id) as Ids.WorkspaceId, postId: String(row.post_id) as Ids.PostId })
          )
        )
      ),

    // One statement per page: the keyset range of posts, and for each of its posts (and only
    // those: the range is limited first) its targets and its approval, as JSON rows read by the
    // same decoders. It used to be three statements (posts, then targets and approvals by id).
    listPosts: (workspaceId, filter, after, limit) =>
      operation("listPosts")(
        sql`${postsWithTargets(sql`SELECT * FROM posts p
            WHERE ${sql.and([
              sql`p.workspace_id = ${workspaceId}`,
              ...(filter.status === undefined ? [] : [sql`p.status = ${filter.status}`]),
              ...(filter.profileId === undefined ? [] : [sql`p.profile_id = ${filter.profileId}`]),
              ...(filter.platform === undefined
                ? []
                : [sql`EXISTS (SELECT 1 FROM targets t
                    WHERE t.workspace_id = p.workspace_id AND t.post_id = p.id AND t.platform = ${filter.platform})`]),
              ...(filter.from === undefined ? [] : [sql`p.publish_at >= ${filter.from}`]),
              ...(filter.to === undefined ? [] : [sql`p.publish_at < ${filter.to}`]),
              ...(after === undefined ? [] : [sql`(p.publish_at, p.id) < (${after.sortKey}, ${after.id})`])
            ])}
            ORDER BY p.publish_at DESC, p.id DESC LIMIT ${limit}`)}
          ORDER BY page.publish_at DESC, page.id DESC`.pipe(Effect.map((rows) => rows.map(aggregateFromPageRow)))
      ),

    countQuotaUsage: (workspaceId, accountId, from, to) =>
      operation("countQuotaUsage")(quotaUsage(workspaceId, accountId, from, to)),

    // One statement where planning a create made five: each part is the read it replaces (the
    // same primary-key lookups and `targets_quota` range), its rows as JSON for the same decoders.
    readPlanInputs: (workspaceId, profileId, accountIds, mediaIds, from, to) =>
      operation("readPlanInputs")(
        Effect.gen(function* () {
          const accounts = [...new Set(accountIds)]
          const none = sql`NULL::jsonb`
          const [row] = yield* sql`SELECT
            (SELECT to_jsonb(profiles) FROM profiles WHERE workspace_id = ${workspaceId} AND id = ${profileId}) AS profile,
            ${accounts.length === 0 ? none : sql`(SELECT jsonb_agg(to_jsonb(accounts)) FROM accounts
                WHERE workspace_id = ${workspaceId} AND ${sql.in("id", accounts)})`} AS accounts,
            ${mediaIds.length === 0 ? none : sql`(SELECT jsonb_agg(to_jsonb(media)) FROM media
                WHERE workspace_id = ${workspaceId} AND ${sql.in("id", mediaIds)})`} AS media,
            ${accounts.length === 0 ? none : sql`(SELECT jsonb_agg(jsonb_build_array(asked.account, counted.used, counted.oldest))
                FROM (VALUES ${sql.csv(accounts.map((id) => sql`(${id})`))}) AS asked (account)
                CROSS JOIN LATERAL (
                  SELECT count(*) AS used, min(t.quota_at) AS oldest FROM targets t
                  WHERE t.workspace_id = ${workspaceId} AND t.account_id = asked.account
                    AND t.status NOT IN ('cancelled', 'rejected', 'failed')
                    AND t.quota_at >= ${from} AND t.quota_at < ${to}
                ) AS counted)`} AS usage`
          const rowsOf = (value: unknown) => (value ?? []) as ReadonlyArray<Row>
          const usage = new Map<string, QuotaUsage>()
          for (const [account, used, oldest] of (row!.usage ?? []) as ReadonlyArray<readonly [string, unknown, unknown]>) {
            usage.set(account, { used: toNumber(used), oldest: toNumberOrNull(oldest) })
          }
          return {
            profile: row!.profile === null || row!.profile === undefined
              ? Option.none()
              : Option.some(profileFromRow(row!.profile as Row)),
            accounts: inRequestedOrder(accountIds, rowsOf(row!.accounts).map(accountFromRow)),
            media: inRequestedOrder(mediaIds, rowsOf(row!.media).map(mediaFromRow)),
            usage
          }
        })
      ),

    listEvents: (workspaceId) =>
      operation("listEvents")(
        sql`SELECT * FROM outbox_events WHERE workspace_id = ${workspaceId} ORDER BY seq`.pipe(
          Effect.map((rows) => rows.map(eventFromRow))
        )
      ),

    ensureSetting: (name, value) =>
      operation("ensureSetting")(
        Effect.gen(function* () {
          yield* sql`INSERT INTO settings (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO NOTHING`
          const [row] = yield* sql`SELECT value FROM settings WHERE name = ${name}`
          return row!.value as string
        })
      ),

    readSetting: (name) =>
      operation("readSetting")(
        sql`SELECT value FROM settings WHERE name = ${name}`.pipe(
          Effect.map((rows) => Option.fromNullishOr(rows[0]?.value as string | undefined))
        )
      ),

    deleteSetting: (name, value) =>
      operation("deleteSetting")(
        sql`DELETE FROM settings WHERE name = ${name} AND value = ${value} RETURNING name`.pipe(Effect.map((rows) => rows.length > 0))
      ),

    listWorkspaces: () =>
      operation("listWorkspaces")(
        sql`SELECT * FROM workspaces ORDER BY created_at, id`.pipe(Effect.map((rows) => rows.map(workspaceFromRow)))
      ),

    listApiKeys: (workspaceId) =>
      operation("listApiKeys")(
        sql`SELECT * FROM api_keys WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(apiKeyFromRow))
        )
      ),

    revokeApiKey: (workspaceId, id, at) =>
      operation("revokeApiKey")(
        sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${at})
          WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING *`.pipe(Effect.map((rows) => firstAs(rows, apiKeyFromRow)))
      )
  }
  return store
})

/**
 * The `Store` on the current `SqlClient`, after applying pending migrations. A database that
 * cannot be migrated is a startup defect carrying a `StoreError` with operation `migrate`.
 *
 * @example
 * ```ts
 * const Embedded = SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({ dataDir: ".postwire/db" })))
 * ```
 */
export const layer: Layer.Layer<Store, never, SqlClient.SqlClient> = migratedLayer(Store, make)


// Drivers differ: PGlite returns int8 as a number, @effect/sql-pg as a bigint, others as a string.
const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

const firstAs = <A>(rows: ReadonlyArray<Row>, decode: (row: Row) => A): Option.Option<A> =>
  rows.length === 0 ? Option.none() : Option.some(decode(rows[0]!))

const inRequestedOrder = <A extends { readonly id: string }>(ids: ReadonlyArray<string>, found: ReadonlyArray<A>) => {
  const byId = new Map(found.map((item) => [item.id, item]))
  return [...new Set(ids)].flatMap((id) => {
    const item = byId.get(id)
    return item === undefined ? [] : [item]
  })
}

const excludedColumns = (columns: ReadonlyArray<string>) =>
  columns.map((column) => `${column} = EXCLUDED.${column}`).join(", ")

const targetColumns = [
  "post_id",
  "position",
  "account_id",
  "platform",
  "status",
  "options",
  "consent",
  "permalink",
  "published_at",
  "quota_at",
  "error",
  "attempts",
  "platform_state",
  "due_at",
  "lease_owner",
  "lease_until",
  "updated_at"
]

const approvalColumns = ["id", "token_hash", "status", "expires_at", "decided_at", "reason", "created_at"]

const accountRow = (account: AccountRecord) => ({
  workspace_id: account.workspaceId,
  id: account.id,
  profile_id: account.profileId,
  platform: account.platform,
  handle: account.handle,
  sandbox: account.sandbox,
  status: account.status,
  daily_quota: account.dailyQuota,
  simulate: jsonOrNull(account.simulate),
  credentials: account.credentials,
  external_id: account.externalId,
  created_at: account.createdAt
})

/** A media row, as the media store writes it too. */
export const mediaRow = (media: MediaRecord) => ({
  workspace_id: media.workspaceId,
  id: media.id,
  kind: media.kind,
  mime: media.mime,
  size_bytes: media.sizeBytes,
  filename: media.filename,
  width: media.width,
  height: media.height,
  duration_seconds: media.durationSeconds,
  blob_key: media.blobKey,
  sha256: media.sha256,
  created_at: media.createdAt,
  status: media.status ?? "ready",
  error: media.error === undefined || media.error === null ? null : JSON.stringify(media.error),
  codec: media.codec ?? null,
  source_url: media.sourceUrl ?? null,
  updated_at: media.updatedAt ?? media.createdAt
})

const postRow = (post: PostRecord) => ({
  workspace_id: post.workspaceId,
  id: post.id,
  profile_id: post.profileId,
  caption: post.caption,
  media: JSON.stringify(post.media),
  scheduled_at: post.scheduledAt,
  ai_generated: post.aiGenerated,
  approval_mode: post.approvalMode,
  notify: jsonOrNull(post.notify),
  status: post.status,
  publish_at: post.publishAt,
  created_at: post.createdAt,
  updated_at: post.updatedAt,
  version: post.version,
  trace_parent: post.traceParent ?? null
})

/** The rows of a post's targets, in order; each counts against its quota at `quota_at`. */
const targetRows = (post: PostRecord, targets: Arr.NonEmptyReadonlyArray<TargetRecord>) =>
  Arr.map(targets, (target, position) => ({ ...targetRow(target, position), quota_at: target.publishedAt ?? post.publishAt }))

const targetRow = (target: TargetRecord, position: number) => ({
  workspace_id: target.workspaceId,
  id: target.id,
  post_id: target.postId,
  position,
  account_id: target.accountId,
  platform: target.platform,
  status: target.status,
  options: JSON.stringify(target.options),
  consent: jsonOrNull(target.consent),
  permalink: target.permalink,
  published_at: target.publishedAt,
  error: jsonOrNull(target.error),
  attempts: target.attempts,
  platform_state: jsonOrNull(target.platformState),
  due_at: target.dueAt,
  lease_owner: target.leaseOwner,
  lease_until: target.leaseUntil,
  updated_at: target.updatedAt
})

const approvalRow = (approval: ApprovalRecord) => ({
  workspace_id: approval.workspaceId,
  id: approval.id,
  post_id: approval.postId,
  token_hash: approval.tokenHash,
  status: approval.status,
  expires_at: approval.expiresAt,
  decided_at: approval.decidedAt,
  reason: approval.reason,
  created_at: approval.createdAt
})

const approvalTokenRow = (approval: ApprovalRecord) => ({
  token_hash: approval.tokenHash,
  workspace_id: approval.workspaceId,
  post_id: approval.postId,
  approval_id: approval.id
})


