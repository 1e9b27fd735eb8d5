/**
 * Comments under published targets, each target's comment polling state, and each account's
 * hourly budget of platform calls for comments. Every table leads with `workspace_id`.
 *
 * - `comments`: one row per account and platform comment id (the unique key that makes a comment
 *   seen twice stored once); deleted comments keep their row (`deleted_at`) so a late poll or
 *   webhook does not bring them back. The list indexes hold only comments not deleted, newest
 *   first, one per filter the API offers, so every page is an index range.
 * - `comment_polls`: one row per published target whose comments are read; `comment_polls_due`
 *   orders what may be claimed by the next poll time (rows that stopped polling are not in it);
 *   `comment_polls_by_item` finds the targets of a platform item for pushed comments, which name
 *   no workspace.
 * - `comment_call_budgets`: the calls an account spent in the current clock hour.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const listIndex = (name: string, column: string | null) =>
  `CREATE INDEX ${name} ON comments (workspace_id, ${column === null ? "" : `${column}, `}created_at DESC, id DESC) WHERE deleted_at IS NULL`

const statements: ReadonlyArray<string> = [
  `CREATE TABLE comments (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    platform_comment_id text COLLATE "C" NOT NULL,
    parent_id text COLLATE "C",
    parent_platform_comment_id text COLLATE "C",
    author_handle text NOT NULL,
    author_display_name text,
    text text NOT NULL,
    created_at bigint NOT NULL,
    hidden boolean NOT NULL,
    like_count integer,
    from_owner boolean NOT NULL,
    permalink text,
    stored_at bigint NOT NULL,
    deleted_at bigint,
    PRIMARY KEY (workspace_id, id),
    UNIQUE (workspace_id, account_id, platform_comment_id),
    FOREIGN KEY (workspace_id, target_id) REFERENCES targets (workspace_id, id) ON DELETE CASCADE
  )`,
  listIndex("comments_by_created_at", null),
  listIndex("comments_by_post", "post_id"),
  listIndex("comments_by_target", "target_id"),
  listIndex("comments_by_account", "account_id"),
  listIndex("comments_by_platform", "platform"),
  `CREATE TABLE comment_polls (
    workspace_id text COLLATE "C" NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    post_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    platform text NOT NULL,
    platform_post_id text COLLATE "C" NOT NULL,
    published_at bigint NOT NULL,
    cursor jsonb,
    next_poll_at bigint,
    failures integer NOT NULL DEFAULT 0,
    lease_owner text,
    lease_until bigint,
    PRIMARY KEY (workspace_id, target_id),
    FOREIGN KEY (workspace_id, target_id) REFERENCES targets (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX comment_polls_due ON comment_polls (next_poll_at) WHERE next_poll_at IS NOT NULL`,
  `CREATE INDEX comment_polls_by_item ON comment_polls (platform, platform_post_id)`,
  `CREATE TABLE comment_call_budgets (
    workspace_id text COLLATE "C" NOT NULL,
    account_id text COLLATE "C" NOT NULL,
    window_start bigint NOT NULL,
    calls integer NOT NULL,
    PRIMARY KEY (workspace_id, account_id)
  )`
]

/** Creates the comment tables. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
