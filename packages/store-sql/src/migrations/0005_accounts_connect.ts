/**
 * Connecting accounts: connect links, the connection of each account connected through one,
 * and its token refresh schedule.
 *
 * - `connect_links`: one row per link, leading with `workspace_id` like every other table.
 * - `connect_link_secrets`: the connect page knows only the link's token, and the platform's
 *   callback only the OAuth `state`; both are found by their SHA-256 here, a small global table
 *   (a reference table on Citus) like `approval_tokens`.
 * - `account_connections`: identity, granted scopes, token expiry and creator options; one per
 *   platform identity and workspace (a second connect of the same identity renews the account).
 * - `account_connections_refresh_due`: the refresh worker claims what is due by `refresh_at`
 *   alone, across workspaces, like a queue: only rows with a refresh scheduled are indexed.
 *
 * @since 0.2.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE connect_links (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    profile_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    sandbox boolean NOT NULL,
    redirect_url text,
    account_id text COLLATE "C",
    token_hash text NOT NULL,
    state_hash text,
    code_verifier text,
    pending_choice text,
    expires_at bigint NOT NULL,
    completed_at bigint,
    account_ids jsonb NOT NULL,
    created_by text NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE TABLE connect_link_secrets (
    secret_hash text PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL,
    link_id text COLLATE "C" NOT NULL,
    kind text NOT NULL
  )`,
  `CREATE INDEX connect_link_secrets_by_link ON connect_link_secrets (workspace_id, link_id)`,
  `CREATE TABLE account_connections (
    workspace_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    sandbox boolean NOT NULL,
    external_id text NOT NULL,
    grant_id text NOT NULL,
    display_name text,
    avatar_url text,
    scopes jsonb NOT NULL,
    connected_at bigint NOT NULL,
    token_expires_at bigint,
    refresh_expires_at bigint,
    privacy_level_options jsonb,
    max_video_post_duration_sec integer,
    refresh_at bigint,
    refresh_failures integer NOT NULL,
    lease_owner text,
    lease_until bigint,
    reconnect_reason jsonb,
    disconnected_at bigint,
    PRIMARY KEY (workspace_id, account_id),
    UNIQUE (workspace_id, platform, sandbox, external_id),
    FOREIGN KEY (workspace_id, account_id) REFERENCES accounts (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX account_connections_refresh_due ON account_connections (refresh_at) WHERE refresh_at IS NOT NULL`,
  `CREATE INDEX account_connections_by_grant ON account_connections (platform, grant_id) WHERE disconnected_at IS NULL`,
  `CREATE INDEX targets_waiting_by_account ON targets (workspace_id, account_id, post_id)
    WHERE status IN ('queued', 'scheduled')`
]

/** Creates the connect links, the connections and the refresh schedule. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
