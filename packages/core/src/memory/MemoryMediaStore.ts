/**
 * The `MediaStore` in memory, on the tables of the in-memory `Store` (`MemoryState`), so media,
 * posts and uploads are seen together as in one database. Every method is one synchronous step.
 *
 * @since 0.3.0
 */
import { Effect, Layer, Option } from "effect"
import type { MediaRecord } from "../store/PostStore.ts"
import { MemoryState, type MemoryTables, rowKey as key } from "./MemoryState.ts"
import { StoreError } from "../store/StoreError.ts"
import {
  type DeleteMediaResult,
  finishedTargetStatuses,
  type MediaJob,
  MediaStore,
  type MediaStoreShape,
  type UploadPartRecord,
  type UploadRecord
} from "../media/MediaStore.ts"

const rowKey = (workspaceId: string, id: string) => key(workspaceId, id)
const finished: ReadonlySet<string> = new Set(finishedTargetStatuses)
const statusOf = (media: MediaRecord) => media.status ?? "ready"

/** Builds the media store over the tables of an in-memory `Store`. */
export const make = (tables: MemoryTables): MediaStoreShape => {
  const { media, posts } = tables
  const { mediaLeases: leases, uploadParts: parts, uploads } = tables

  const postsNaming = (workspaceId: string, id: string) => posts.all(workspaceId).filter((p) => (p.post.media as ReadonlyArray<string>).includes(id))
  const unfinishedPostNaming = (workspaceId: string, id: string) =>
    postsNaming(workspaceId, id).find((p) => p.targets.some((t) => !finished.has(t.status)))

  const remove = (workspaceId: string, id: string) => {
    media.delete(workspaceId, id)
    uploads.delete(rowKey(workspaceId, id))
    parts.delete(rowKey(workspaceId, id))
    leases.delete(rowKey(workspaceId, id))
  }

  const isExpired = (item: MediaRecord, at: number, unusedBefore: number): UploadRecord | undefined | false => {
    const upload = uploads.get(rowKey(item.workspaceId, item.id))
    if (upload !== undefined && upload.status === "receiving") return upload.expiresAt <= at ? upload : false
    if (item.createdAt < unusedBefore && postsNaming(item.workspaceId, item.id).length === 0) return upload
    return false
  }

  return {
    usedByLivePosts: (workspaceId, ids) =>
      Effect.sync(() => {
        const wanted = new Set<string>(ids)
        const used = new Set<string>()
        for (const p of posts.all(workspaceId)) {
          if (!p.targets.some((t) => tables.accounts.get(workspaceId, t.accountId)?.sandbox === false)) continue
          for (const id of p.post.media as ReadonlyArray<string>) if (wanted.has(id)) used.add(id)
        }
        return used
      }),

    listMedia: (workspaceId, after, limit) =>
      Effect.sync(() =>
        media
          .all(workspaceId)
          .filter(
            (m) => after === undefined || m.createdAt < after.sortKey || (m.createdAt === after.sortKey && m.id < after.id)
          )
          .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .slice(0, limit)
      ),

    updateMedia: (item) =>
      Effect.suspend(() => {
        if (media.get(item.workspaceId, item.id) === undefined) return Effect.void
        media.put(item.workspaceId, item.id, item)
        leases.delete(rowKey(item.workspaceId, item.id))
        return Effect.void
      }),

    deleteMedia: (workspaceId, id) =>
      Effect.sync((): DeleteMediaResult => {
        const found = media.get(workspaceId, id)
        if (found === undefined) return { _tag: "NotFound" }
        const user = unfinishedPostNaming(workspaceId, id)
        if (user !== undefined) return { _tag: "InUse", postId: user.post.id }
        const upload = uploads.get(rowKey(workspaceId, id))
        remove(workspaceId, id)
        return { _tag: "Deleted", media: found, upload }
      }),

    createUpload: (item, upload) =>
      Effect.suspend(() => {
        if (media.get(item.workspaceId, item.id) !== undefined) {
          return Effect.fail(new StoreError({ operation: "createUpload", cause: new Error(`duplicate key ${item.id}`) }))
        }
        media.put(item.workspaceId, item.id, item)
        uploads.set(rowKey(item.workspaceId, item.id), upload)
        return Effect.void
      }),

    getUpload: (workspaceId, mediaId) => Effect.sync(() => Option.fromNullishOr(uploads.get(rowKey(workspaceId, mediaId)))),

    putUploadPart: (workspaceId, mediaId, part) =>
      Effect.sync(() => {
        const key = rowKey(workspaceId, mediaId)
        if (!uploads.has(key)) return
        const stored = parts.get(key) ?? new Map<number, UploadPartRecord>()
        stored.set(part.number, part)
        parts.set(key, stored)
      }),

    listUploadParts: (workspaceId, mediaId) =>
      Effect.sync(() => [...(parts.get(rowKey(workspaceId, mediaId))?.values() ?? [])].sort((a, b) => a.number - b.number)),

    completeUpload: (item) =>
      Effect.sync(() => {
        const key = rowKey(item.workspaceId, item.id)
        const upload = uploads.get(key)
        if (upload === undefined || media.get(item.workspaceId, item.id) === undefined) return
        uploads.set(key, { ...upload, status: "completed" })
        parts.delete(key)
        media.put(item.workspaceId, item.id, item)
      }),

    claimMediaJobs: ({ at, leaseUntil, limit, owner, unusedBefore }) =>
      Effect.sync(() => {
        const jobs: Array<MediaJob> = []
        const candidates = [...media.everywhere()].sort((a, b) => a.createdAt - b.createdAt)
        for (const item of candidates) {
          if (jobs.length >= limit) break
          const key = rowKey(item.workspaceId, item.id)
          const lease = leases.get(key)
          if (lease !== undefined && lease.until > at) continue
          const expired = isExpired(item, at, unusedBefore)
          if (expired !== false) {
            jobs.push({ _tag: "Expire", media: item, upload: expired })
          } else if (statusOf(item) === "processing" && item.sourceUrl) {
            jobs.push({ _tag: "Import", media: item })
          } else {
            continue
          }
          leases.set(key, { owner, until: leaseUntil })
        }
        return jobs
      }),

    deleteExpiredMedia: (workspaceId, id, owner, unusedBefore, at) =>
      Effect.sync(() => {
        const item = media.get(workspaceId, id)
        const lease = leases.get(rowKey(workspaceId, id))
        if (item === undefined || lease?.owner !== owner) return false
        if (isExpired(item, at, unusedBefore) === false) {
          leases.delete(rowKey(workspaceId, id))
          return false
        }
        remove(workspaceId, id)
        return true
      })
  }
}

/**
 * The in-memory media store, over the tables of `MemoryStore.layer`.
 *
 * @example
 * ```ts
 * const Engine = MemoryMediaStore.layer.pipe(Layer.provideMerge(MemoryStore.layer))
 * ```
 */
export const layer: Layer.Layer<MediaStore, never, MemoryState> = Layer.effect(MediaStore)(MemoryState.useSync(make))
