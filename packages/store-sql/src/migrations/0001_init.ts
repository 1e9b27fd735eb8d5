/**
 * The first schema. Every table that grows with use carries `workspace_id`, and its primary
 * key and indexes lead with it, so the schema can be distributed by workspace (Citus) without
 * redesign. Ids are `COLLATE "C"` so keyset order is byte order on every database.
 * Times are epoch milliseconds in `bigint`; structured values are `jsonb`.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE workspaces (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    allowed_redirect_domains jsonb NOT NULL,
    created_at bigint NOT NULL
  )`,
  `CREATE TABLE api_keys (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    kind text NOT NULL,
    scopes jsonb NOT NULL,
    key_hash text NOT NULL,
    last4 text NOT NULL,
    created_at bigint NOT NULL,
    revoked_at bigint,
    PRIMARY KEY (workspace_id, id)
  )`,
  // Authentication looks a key up by its hash before it knows the workspace, so the hash
  // lives in a small global table (a reference table on Citus) pointing at the key.
  `CREATE TABLE api_key_hashes (
    key_hash text PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL,
    key_id text COLLATE "C" NOT NULL
  )`,
  `CREATE TABLE profiles (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE INDEX profiles_by_created_at ON profiles (workspace_id, created_at DESC, id DESC)`,
  `CREATE TABLE accounts (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    profile_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    handle text NOT NULL,
    sandbox boolean NOT NULL,
    status text NOT NULL,
    daily_quota integer,
    simulate jsonb,
    credentials text,
    external_id text,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE INDEX accounts_by_created_at ON accounts (workspace_id, created_at DESC, id DESC)`,
  `CREATE INDEX accounts_by_profile ON accounts (workspace_id, profile_id, created_at DESC, id DESC)`,
  `CREATE TABLE media (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    kind text NOT NULL,
    mime text NOT NULL,
    size_bytes bigint NOT NULL,
    filename text,
    width integer,
    height integer,
    duration_seconds double precision,
    blob_key text NOT NULL,
    sha256 text NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE TABLE posts (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    profile_id text COLLATE "C" NOT NULL,
    caption text NOT NULL,
    media jsonb NOT NULL,
    scheduled_at bigint,
    ai_generated boolean NOT NULL,
    approval_mode text NOT NULL,
    notify jsonb,
    status text NOT NULL,
    publish_at bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    version integer NOT NULL,
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE INDEX posts_by_publish_at ON posts (workspace_id, publish_at DESC, id DESC)`,
  `CREATE INDEX posts_by_status ON posts (workspace_id, status, publish_at DESC, id DESC)`,
  `CREATE INDEX posts_by_profile ON posts (workspace_id, profile_id, publish_at DESC, id DESC)`,
  `CREATE TABLE targets (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    position integer NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    status text NOT NULL,
    options jsonb NOT NULL,
    consent jsonb,
    permalink text,
    published_at bigint,
    error jsonb,
    attempts integer NOT NULL,
    platform_state jsonb,
    due_at bigint,
    lease_owner text,
    lease_until bigint,
    updated_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id, post_id) REFERENCES posts (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX targets_by_post ON targets (workspace_id, post_id, position)`,
  `CREATE INDEX targets_by_account ON targets (workspace_id, account_id)`,
  `CREATE TABLE approvals (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    token_hash text NOT NULL,
    status text NOT NULL,
    expires_at bigint NOT NULL,
    decided_at bigint,
    reason text,
    created_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, post_id),
    FOREIGN KEY (workspace_id, post_id) REFERENCES posts (workspace_id, id) ON DELETE CASCADE
  )`,
  // The approval page finds an approval by its token's hash alone: same global table as keys.
  `CREATE TABLE approval_tokens (
    token_hash text PRIMARY KEY,
    workspace_id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    approval_id text COLLATE "C" NOT NULL
  )`,
  `CREATE TABLE outbox_events (
    workspace_id text COLLATE "C" NOT NULL,
    seq bigserial NOT NULL,
    id text COLLATE "C" NOT NULL,
    type text NOT NULL,
    created_at bigint NOT NULL,
    livemode boolean NOT NULL,
    data jsonb NOT NULL,
    dispatched_at bigint,
    PRIMARY KEY (workspace_id, seq),
    UNIQUE (workspace_id, id)
  )`,
  `CREATE INDEX outbox_events_pending ON outbox_events (workspace_id, seq) WHERE dispatched_at IS NULL`,
  // Short-lived counters keyed by bucket (which names its key or workspace); pruned as they expire.
  `CREATE TABLE rate_limits (
    bucket text COLLATE "C" NOT NULL,
    window_start bigint NOT NULL,
    count integer NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (bucket, window_start)
  )`,
  `CREATE INDEX rate_limits_by_expiry ON rate_limits (expires_at)`,
  `CREATE TABLE idempotency_keys (
    workspace_id text COLLATE "C" NOT NULL,
    key_id text COLLATE "C" NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL,
    status integer,
    body text,
    created_at bigint NOT NULL,
    locked_until bigint NOT NULL,
    PRIMARY KEY (workspace_id, key_id, key)
  )`,
  `CREATE TABLE settings (
    name text PRIMARY KEY,
    value text NOT NULL
  )`
]

/** Creates every table and index of the first version. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
