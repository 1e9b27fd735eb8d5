/**
 * The media lifecycle (docs/media.md):
 *
 * - `media.status` (`processing`, `ready`, `failed`; existing rows are ready), `error` (a catalog
 *   code and its details), `codec`, `source_url` (URL imports), `updated_at`, and a lease
 *   (`lease_owner`, `lease_until`) under which one worker runs the item's job (import, expiry).
 * - `media_uploads`: a resumable upload of one item, with the storage's multipart reference and
 *   when it expires; `media_upload_parts`: the parts that arrived.
 * - `media_by_created`: the list order (newest first); `media_jobs`: items a worker may have a
 *   job for, without scanning ready media.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements: ReadonlyArray<string> = [
  `ALTER TABLE media ADD COLUMN status text NOT NULL DEFAULT 'ready'`,
  `ALTER TABLE media ADD COLUMN error jsonb`,
  `ALTER TABLE media ADD COLUMN codec text`,
  `ALTER TABLE media ADD COLUMN source_url text`,
  `ALTER TABLE media ADD COLUMN updated_at bigint`,
  `ALTER TABLE media ADD COLUMN lease_owner text`,
  `ALTER TABLE media ADD COLUMN lease_until bigint`,
  `CREATE INDEX media_by_created ON media (workspace_id, created_at DESC, id DESC)`,
  `CREATE INDEX media_processing ON media (created_at) WHERE status = 'processing'`,
  `CREATE TABLE media_uploads (
    workspace_id text COLLATE "C" NOT NULL,
    media_id text COLLATE "C" NOT NULL,
    size bigint NOT NULL,
    part_size bigint NOT NULL,
    reference text NOT NULL,
    status text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (workspace_id, media_id),
    FOREIGN KEY (workspace_id, media_id) REFERENCES media (workspace_id, id) ON DELETE CASCADE
  )`,
  `CREATE INDEX media_uploads_expiring ON media_uploads (expires_at) WHERE status = 'receiving'`,
  `CREATE TABLE media_upload_parts (
    workspace_id text COLLATE "C" NOT NULL,
    media_id text COLLATE "C" NOT NULL,
    part_number integer NOT NULL,
    size bigint NOT NULL,
    tag text NOT NULL,
    PRIMARY KEY (workspace_id, media_id, part_number),
    FOREIGN KEY (workspace_id, media_id) REFERENCES media_uploads (workspace_id, media_id) ON DELETE CASCADE
  )`
]

/** Adds statuses, uploads in parts and job leases to media. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) {
    yield* sql.unsafe(statement)
  }
})
