/**
 * The `MediaStore` service: the media lifecycle on the engine's database. It lists and deletes
 * media items, keeps resumable uploads and the parts that arrived, and hands media jobs (URL
 * imports, expiry) to workers under a lease, so several instances never run the same job.
 *
 * Media rows themselves are the `Store`'s (`createMedia`, `getMedia`): this store adds what
 * their life needs.
 *
 * @since 0.3.0
 */
import { Context, type Effect, type Option } from "effect"
import type { Ids } from "@postwire/domain"
import type { MediaRecord } from "../store/PostStore.ts"
import type { Keyset } from "../store/Keyset.ts"
import type { StoreError } from "../store/StoreError.ts"

/** A resumable upload of one media item. */
export interface UploadRecord {
  readonly workspaceId: Ids.WorkspaceId
  readonly mediaId: Ids.MediaId
  /** The announced size of the whole file. */
  readonly size: number
  readonly partSize: number
  /** The storage's reference of the multipart write (`BlobStore.startParts`). */
  readonly reference: string
  readonly status: "receiving" | "completed"
  readonly createdAt: number
  /** An upload still `receiving` at this time is deleted with its media item. */
  readonly expiresAt: number
}

/** A part that arrived. */
export interface UploadPartRecord {
  readonly number: number
  readonly size: number
  /** The storage's tag of the part (`BlobStore.writePart`). */
  readonly tag: string
}

/** Why a media item could not be deleted, or that it was. */
export type DeleteMediaResult =
  | { readonly _tag: "Deleted"; readonly media: MediaRecord; readonly upload: UploadRecord | undefined }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "InUse"; readonly postId: Ids.PostId }

/** What a worker asks of {@link MediaStoreShape.claimMediaJobs}. */
export interface MediaJobClaim {
  /** Now. */
  readonly at: number
  readonly leaseUntil: number
  readonly owner: string
  readonly limit: number
  /** Media no post names, created before this time, have expired. */
  readonly unusedBefore: number
}

/** A media job: import the item from its `sourceUrl`, or delete it (expired). */
export type MediaJob =
  | { readonly _tag: "Import"; readonly media: MediaRecord }
  | { readonly _tag: "Expire"; readonly media: MediaRecord; readonly upload: UploadRecord | undefined }

/** The media lifecycle's storage. */
export interface MediaStoreShape {
  /** Media of a workspace, newest first (`createdAt`, then id), after `after`. */
  readonly listMedia: (
    workspaceId: Ids.WorkspaceId,
    after: Keyset | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<MediaRecord>, StoreError>
  /** Which of these media a post targeting a live (non-sandbox) account names: live data, out of a test key's reach. */
  readonly usedByLivePosts: (workspaceId: Ids.WorkspaceId, ids: ReadonlyArray<Ids.MediaId>) => Effect.Effect<ReadonlySet<string>, StoreError>
  /** Replaces a media item's fields (status, probe results, error); releases any lease on it. */
  readonly updateMedia: (media: MediaRecord) => Effect.Effect<void, StoreError>
  /**
   * Deletes the item (and its upload) unless a post whose targets have not all finished
   * (published, failed, cancelled, rejected) names it.
   */
  readonly deleteMedia: (workspaceId: Ids.WorkspaceId, id: Ids.MediaId) => Effect.Effect<DeleteMediaResult, StoreError>
  /** Creates a media item and its upload together. */
  readonly createUpload: (media: MediaRecord, upload: UploadRecord) => Effect.Effect<void, StoreError>
  readonly getUpload: (workspaceId: Ids.WorkspaceId, mediaId: Ids.MediaId) => Effect.Effect<Option.Option<UploadRecord>, StoreError>
  /** Records a part (replacing an earlier copy of it). */
  readonly putUploadPart: (workspaceId: Ids.WorkspaceId, mediaId: Ids.MediaId, part: UploadPartRecord) => Effect.Effect<void, StoreError>
  /** The parts that arrived, by number. */
  readonly listUploadParts: (workspaceId: Ids.WorkspaceId, mediaId: Ids.MediaId) => Effect.Effect<ReadonlyArray<UploadPartRecord>, StoreError>
  /** Marks the upload completed and stores the media item as it now is, together. */
  readonly completeUpload: (media: MediaRecord) => Effect.Effect<void, StoreError>
  /**
   * Leases due media jobs to `owner` until `leaseUntil`: items `processing` with a `sourceUrl`
   * (imports), uploads still `receiving` past their `expiresAt`, and items no post names
   * created before `unusedBefore`. An item leased to another worker is skipped.
   */
  readonly claimMediaJobs: (claim: MediaJobClaim) => Effect.Effect<ReadonlyArray<MediaJob>, StoreError>
  /**
   * Deletes an expired item leased to `owner`, if it is still expired (a post may have named
   * it since the claim); answers whether it did.
   */
  readonly deleteExpiredMedia: (
    workspaceId: Ids.WorkspaceId,
    id: Ids.MediaId,
    owner: string,
    unusedBefore: number,
    at: number
  ) => Effect.Effect<boolean, StoreError>
}

/** The media lifecycle's storage. */
export class MediaStore extends Context.Service<MediaStore, MediaStoreShape>()("postwire/MediaStore") {}

/** Target statuses after which a post no longer needs its media. */
export const finishedTargetStatuses: ReadonlyArray<string> = ["published", "failed", "cancelled", "rejected"]
