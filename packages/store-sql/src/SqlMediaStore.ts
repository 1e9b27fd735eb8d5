/**
 * The `MediaStore` on SQL (PostgreSQL and the embedded PGlite): media listing and deletion,
 * resumable uploads and their parts, and media jobs claimed with a lease (`FOR UPDATE SKIP
 * LOCKED`), so several instances never run one job twice.
 *
 * @since 0.3.0
 */

import {
  type DeleteMediaResult,
  finishedTargetStatuses,
  type MediaJob,
  type MediaRecord,
  MediaStore,
  type MediaStoreShape,
  type UploadRecord
} from "@postwire/core"
import { Effect, type Layer, Option } from "effect"
import { SqlClient, } from "effect/sql"
import { migratedLayer, operations } from "./internal/SqlToolkit.ts"
import { mediaFromRow, partFromRow, uploadFromRow } from "./internal/Rows.ts"
import { mediaRow } from "./SqlStore.ts"


const uploadRow = (upload: UploadRecord) => ({
  workspace_id: upload.workspaceId,
  media_id: upload.mediaId,
  size: upload.size,
  part_size: upload.partSize,
  reference: upload.reference,
  status: upload.status,
  created_at: upload.createdAt,
  expires_at: upload.expiresAt
})

/** Builds the media store on the current `SqlClient`; the schema must already be migrated. */
export const make: Effect.Effect<MediaStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const operation = operations("MediaStore")

  // A post names the media item and has a target that has not finished.
  const unfinishedUser = (workspaceId: string, id: string) =>
    sql`SELECT p.id FROM posts p
      WHERE p.workspace_id = ${workspaceId} AND p.media @> jsonb_build_array(${id}::text)
        AND EXISTS (SELECT 1 FROM targets t
                    WHERE t.workspace_id = p.workspace_id AND t.post_id = p.id
                      AND t.status NOT IN ${sql.in(finishedTargetStatuses)})
      LIMIT 1`

  // Why a media row is due for a job, if it is: `expire` or `import`.
  const jobCondition = (at: number, unusedBefore: number) => sql`(
      (u.status = 'receiving' AND u.expires_at <= ${at})
      OR (m.status = 'processing' AND m.source_url IS NOT NULL)
      OR ((u.status IS NULL OR u.status = 'completed') AND m.created_at < ${unusedBefore}
          AND NOT EXISTS (SELECT 1 FROM posts p
                          WHERE p.workspace_id = m.workspace_id AND p.media @> jsonb_build_array(m.id))))`

  const store: MediaStoreShape = {
    usedByLivePosts: (workspaceId, ids) =>
      ids.length === 0
        ? Effect.succeed(new Set<string>())
        : operation("usedByLivePosts")(
            sql`SELECT DISTINCT named.id FROM posts p
                CROSS JOIN LATERAL jsonb_array_elements_text(p.media) AS named(id)
                WHERE p.workspace_id = ${workspaceId} AND ${sql.in("named.id", ids)}
                  AND EXISTS (SELECT 1 FROM targets t
                              JOIN accounts a ON a.workspace_id = t.workspace_id AND a.id = t.account_id
                              WHERE t.workspace_id = p.workspace_id AND t.post_id = p.id AND NOT a.sandbox)`.pipe(
              Effect.map((rows) => new Set(rows.map((row) => row.id as string)))
            )
          ),

    listMedia: (workspaceId, after, limit) =>
      operation("listMedia")(
        sql`SELECT * FROM media
            WHERE ${sql.and([
              sql`workspace_id = ${workspaceId}`,
              ...(after === undefined ? [] : [sql`(created_at, id) < (${after.sortKey}, ${after.id})`])
            ])}
            ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(mediaFromRow)))
      ),

    updateMedia: (media) =>
      operation("updateMedia")(
        Effect.gen(function* () {
          const { workspace_id, id, ...fields } = mediaRow(media)
          yield* sql`UPDATE media SET ${sql.update({ ...fields, lease_owner: null, lease_until: null })}
            WHERE workspace_id = ${workspace_id} AND id = ${id}`
        })
      ),

    deleteMedia: (workspaceId, id) =>
      operation("deleteMedia")(
        sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql`SELECT * FROM media WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`
            if (row === undefined) return { _tag: "NotFound" } as DeleteMediaResult
            const [user] = yield* unfinishedUser(workspaceId, id)
            if (user !== undefined) return { _tag: "InUse", postId: user.id as string } as DeleteMediaResult
            const [upload] = yield* sql`SELECT * FROM media_uploads WHERE workspace_id = ${workspaceId} AND media_id = ${id}`
            yield* sql`DELETE FROM media WHERE workspace_id = ${workspaceId} AND id = ${id}`
            return {
              _tag: "Deleted",
              media: mediaFromRow(row),
              upload: upload === undefined ? undefined : uploadFromRow(upload)
            } as DeleteMediaResult
          })
        )
      ),

    createUpload: (media, upload) =>
      operation("createUpload")(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO media ${sql.insert(mediaRow(media))}`
            yield* sql`INSERT INTO media_uploads ${sql.insert(uploadRow(upload))}`
          })
        )
      ),

    getUpload: (workspaceId, mediaId) =>
      operation("getUpload")(
        sql`SELECT * FROM media_uploads WHERE workspace_id = ${workspaceId} AND media_id = ${mediaId}`.pipe(
          Effect.map(([row]) => (row === undefined ? Option.none() : Option.some(uploadFromRow(row))))
        )
      ),

    putUploadPart: (workspaceId, mediaId, part) =>
      operation("putUploadPart")(
        sql`INSERT INTO media_upload_parts ${sql.insert({
          workspace_id: workspaceId,
          media_id: mediaId,
          part_number: part.number,
          size: part.size,
          tag: part.tag
        })}
        ON CONFLICT (workspace_id, media_id, part_number) DO UPDATE SET size = EXCLUDED.size, tag = EXCLUDED.tag`.pipe(
          Effect.asVoid
        )
      ),

    listUploadParts: (workspaceId, mediaId) =>
      operation("listUploadParts")(
        sql`SELECT * FROM media_upload_parts WHERE workspace_id = ${workspaceId} AND media_id = ${mediaId}
            ORDER BY part_number`.pipe(Effect.map((rows) => rows.map(partFromRow)))
      ),

    completeUpload: (media) =>
      operation("completeUpload")(
        sql.withTransaction(
          Effect.gen(function* () {
            const { workspace_id, id, ...fields } = mediaRow(media)
            yield* sql`UPDATE media SET ${sql.update(fields)} WHERE workspace_id = ${workspace_id} AND id = ${id}`
            yield* sql`UPDATE media_uploads SET status = 'completed'
              WHERE workspace_id = ${workspace_id} AND media_id = ${id}`
            yield* sql`DELETE FROM media_upload_parts WHERE workspace_id = ${workspace_id} AND media_id = ${id}`
          })
        )
      ),

    claimMediaJobs: ({ at, leaseUntil, limit, owner, unusedBefore }) =>
      operation("claimMediaJobs")(
        sql.withTransaction(
          Effect.gen(function* () {
            if (limit <= 0) return []
            const due = yield* sql`SELECT m.workspace_id, m.id FROM media m
              LEFT JOIN media_uploads u ON u.workspace_id = m.workspace_id AND u.media_id = m.id
              WHERE (m.lease_until IS NULL OR m.lease_until <= ${at}) AND ${jobCondition(at, unusedBefore)}
              ORDER BY m.created_at, m.id
              LIMIT ${limit}
              FOR UPDATE OF m SKIP LOCKED`
            if (due.length === 0) return []
            const jobs: Array<MediaJob> = []
            for (const row of due) {
              const [claimed] = yield* sql`UPDATE media SET lease_owner = ${owner}, lease_until = ${leaseUntil}
                WHERE workspace_id = ${row.workspace_id as string} AND id = ${row.id as string} RETURNING *`
              if (claimed === undefined) continue
              const media: MediaRecord = mediaFromRow(claimed)
              const [uploadRowFound] = yield* sql`SELECT * FROM media_uploads
                WHERE workspace_id = ${media.workspaceId} AND media_id = ${media.id}`
              const upload = uploadRowFound === undefined ? undefined : uploadFromRow(uploadRowFound)
              const expiredUpload = upload !== undefined && upload.status === "receiving" && upload.expiresAt <= at
              if (!expiredUpload && media.status === "processing" && media.sourceUrl) jobs.push({ _tag: "Import", media })
              else jobs.push({ _tag: "Expire", media, upload })
            }
            return jobs
          })
        )
      ),

    deleteExpiredMedia: (workspaceId, id, owner, unusedBefore, at) =>
      operation("deleteExpiredMedia")(
        sql.withTransaction(
          Effect.gen(function* () {
            const still = yield* sql`SELECT m.id FROM media m
              LEFT JOIN media_uploads u ON u.workspace_id = m.workspace_id AND u.media_id = m.id
              WHERE m.workspace_id = ${workspaceId} AND m.id = ${id} AND m.lease_owner = ${owner}
                AND ((u.status = 'receiving' AND u.expires_at <= ${at})
                  OR ((u.status IS NULL OR u.status = 'completed') AND m.created_at < ${unusedBefore}
                      AND NOT EXISTS (SELECT 1 FROM posts p
                                      WHERE p.workspace_id = m.workspace_id AND p.media @> jsonb_build_array(m.id))))
              FOR UPDATE OF m`
            if (still.length === 0) {
              yield* sql`UPDATE media SET lease_owner = NULL, lease_until = NULL
                WHERE workspace_id = ${workspaceId} AND id = ${id} AND lease_owner = ${owner}`
              return false
            }
            yield* sql`DELETE FROM media WHERE workspace_id = ${workspaceId} AND id = ${id}`
            return true
          })
        )
      )
  }
  return store
})

/** The media store on the current `SqlClient`, migrating the schema first. */
export const layer: Layer.Layer<MediaStore, never, SqlClient.SqlClient> = migratedLayer(MediaStore, make)
