/**
 * The media jobs: a worker loop that leases due jobs from the `MediaStore` and runs them.
 *
 * - **Import**: downloads an item's `sourceUrl` through the `MediaFetcher` (SSRF rules, 4 GiB,
 *   10 minutes), streaming it to storage, probes it, and makes it `ready` or `failed`.
 * - **Expire**: deletes an upload not completed within 24 hours (with its parts), and an item no
 *   post names 7 days after its creation (docs/media.md states the rule).
 *
 * Jobs are leased, so any number of instances share the work; a job whose worker died is leased
 * again once its lease runs out.
 *
 * @since 0.3.0
 */
import { Cause, Effect } from "effect"
import { Media as MediaWire } from "@postwire/domain"
import type { MediaFailure, MediaRecord } from "../store/PostStore.ts"
import { BlobStore } from "./BlobStore.ts"
import { MediaFetcher } from "./MediaFetcher.ts"
import { probeStoredMedia } from "./MediaProbe.ts"
import { MediaStore, type MediaJob } from "./MediaStore.ts"
import { unusedMediaTtlMs } from "./Media.ts"
import * as Renditions from "./Renditions.ts"

/** How a worker runs media jobs. */
export interface MediaJobSettings {
  /** Names this instance in leases. */
  readonly owner: string
  /** Jobs run at once. */
  readonly concurrency: number
  /** How long a lease lasts; an import longer than this is leased again, so it covers the fetch limit. */
  readonly leaseMs: number
  /** How often an idle worker looks for jobs. */
  readonly pollMs: number
  /** Largest imported file. */
  readonly maxImportBytes: number
  /** Longest download. */
  readonly importTimeoutMs: number
  /** How long an item no post names is kept. */
  readonly unusedMediaTtlMs: number
}

/** The defaults, for an instance named `owner`. */
export const defaults = (owner: string): MediaJobSettings => ({
  owner,
  concurrency: 4,
  leaseMs: 15 * 60 * 1000,
  pollMs: 1000,
  maxImportBytes: MediaWire.maxUploadBytes,
  importTimeoutMs: 10 * 60 * 1000,
  unusedMediaTtlMs
})

const now = Effect.clockWith((c) => c.currentTimeMillis)

const failImport = (media: MediaRecord, failure: MediaFailure) =>
  Effect.gen(function* () {
    const store = yield* MediaStore
    yield* store.updateMedia({ ...media, status: "failed", error: failure, updatedAt: yield* now })
    yield* Effect.logInfo("media import failed", { media_id: media.id, code: failure.code })
  })

/** Downloads an item, streaming it to storage, and makes it `ready` or `failed`. */
export const importMedia = Effect.fn("media.importFile")(function* (settings: MediaJobSettings, media: MediaRecord) {
  const store = yield* MediaStore
  const blobs = yield* BlobStore
  const fetcher = yield* MediaFetcher
  const downloaded = yield* fetcher
    .fetch(media.sourceUrl ?? "", { maxBytes: settings.maxImportBytes, timeoutMs: settings.importTimeoutMs })
    .pipe(
      Effect.flatMap((file) =>
        blobs.write(media.blobKey, file.body).pipe(Effect.map((size) => ({ size, name: file.name })))
      ),
      Effect.result
    )
  if (downloaded._tag === "Failure") {
    const error = downloaded.failure
    if (error._tag === "MediaFetchFailed") return yield* failImport(media, error.failure)
    return yield* Effect.die(error)
  }
  const { size, name } = downloaded.success
  const sniffed = yield* probeStoredMedia(blobs, media.blobKey, size).pipe(Effect.orDie)
  // An image that may have to be converted (a PNG for Instagram) must decode whole, as inline uploads.
  if (sniffed._tag === "Unsupported" || !(yield* Renditions.storedImageDecodes(blobs, media.blobKey, size, sniffed))) {
    yield* blobs.remove(media.blobKey).pipe(Effect.ignore)
    return yield* failImport(media, { code: "unsupported_format", field: "url" })
  }
  yield* store.updateMedia({
    ...media,
    status: "ready",
    kind: sniffed._tag === "Image" ? "image" : "video",
    mime: sniffed.mime,
    sizeBytes: size,
    filename: media.filename ?? name ?? null,
    width: sniffed.width ?? null,
    height: sniffed.height ?? null,
    durationSeconds: sniffed._tag === "Video" ? (sniffed.durationSeconds ?? null) : null,
    codec: sniffed._tag === "Video" ? (sniffed.codec ?? null) : null,
    error: null,
    updatedAt: yield* now
  })
})

/** Deletes an expired item (if it is still expired) and then its bytes. */
const expireMedia = Effect.fn("media.expire")(function* (
  settings: MediaJobSettings,
  job: Extract<MediaJob, { readonly _tag: "Expire" }>,
  at: number
) {
  const store = yield* MediaStore
  const blobs = yield* BlobStore
  const { media, upload } = job
  const deleted = yield* store.deleteExpiredMedia(media.workspaceId, media.id, settings.owner, at - settings.unusedMediaTtlMs, at)
  if (!deleted) return
  if (upload !== undefined && upload.status === "receiving") {
    yield* blobs.abortParts(media.blobKey, upload.reference).pipe(Effect.ignore)
  }
  yield* blobs.remove(media.blobKey).pipe(Effect.ignore)
  // A rendition made for a platform (a JPEG of a PNG) goes with it; none is no error.
  yield* blobs.remove(Renditions.jpegKey(media.blobKey)).pipe(Effect.ignore)
  yield* Effect.logInfo("media expired", { media_id: media.id })
})

/** One round: leases what is due and runs it; answers how many jobs ran. */
export const runMediaJobs = Effect.fn("media.jobs")(function* (settings: MediaJobSettings) {
  const store = yield* MediaStore
  const at = yield* now
  const jobs = yield* store.claimMediaJobs({
    at,
    leaseUntil: at + settings.leaseMs,
    owner: settings.owner,
    limit: settings.concurrency,
    unusedBefore: at - settings.unusedMediaTtlMs
  })
  yield* Effect.forEach(
    jobs,
    (job) =>
      (job._tag === "Import" ? importMedia(settings, job.media) : expireMedia(settings, job, at)).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logError("media job failed", cause)
        )
      ),
    { concurrency: settings.concurrency, discard: true }
  )
  return jobs.length
})

/** Runs media jobs in the background for as long as the scope lives. */
export const start = Effect.fn("media.jobs.start")(function* (settings: MediaJobSettings) {
  const round = runMediaJobs(settings).pipe(
    Effect.flatMap((ran) => (ran < settings.concurrency ? Effect.sleep(settings.pollMs) : Effect.void)),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.logError("media jobs round failed", cause).pipe(Effect.andThen(Effect.sleep(settings.pollMs)))
    )
  )
  yield* Effect.forkScoped(Effect.forever(round))
})
