/**
 * Media use-cases: inline and form uploads, resumable uploads in parts, URL imports, listing,
 * retrieval and deletion. The type of a file is always read from its bytes.
 *
 * Life of an item: `processing` while its bytes arrive (an upload in parts, an import), then
 * `ready` once they are stored and probed, or `failed` with its reason in the shared error
 * shape. Inline and form uploads are `ready` at once.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { createHash } from "node:crypto"
import { Effect, Option, Stream } from "effect"
import {
  ErrorDetail,
  formatInstant,
  type Locale,
  Media as MediaWire,
  PostwireError,
  renderError
} from "@postwire/domain"
import { type Caller, refuseLiveToTestKey, sees } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import { Ids } from "../ids/Ids.ts"
import { decodeCursor, encodeCursor, filterDigest } from "../posts/Cursor.ts"
import type { MediaFailure, MediaRecord } from "../store/PostStore.ts"
import { Store } from "../store/Store.ts"
import { checkDeliveryAddress } from "../urls/UrlSafety.ts"
import { describeUnsafeUrl, WebhookSettings } from "../urls/UrlSettings.ts"
import { BlobStore, PartLengthMismatch } from "./BlobStore.ts"
import { ImageConverter } from "./ImageConverter.ts"
import { probeStoredMedia } from "./MediaProbe.ts"
import { type SniffResult, sniffMedia } from "./MediaSniffer.ts"
import { MediaStore, type UploadPartRecord, type UploadRecord } from "./MediaStore.ts"
import * as Renditions from "./Renditions.ts"

const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** How long an upload may take to complete before it expires with its parts (24 hours). */
export const uploadTtlMs = 24 * 60 * 60 * 1000

/** How long a media item no post names is kept (7 days from its creation). */
export const unusedMediaTtlMs = 7 * 24 * 60 * 60 * 1000

/** Decodes inline base64 (standard or URL-safe; a `data:` URL prefix is accepted). */
export const decodeInlineData = (data: string): Uint8Array | undefined => {
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1
  const payload = (comma >= 0 ? data.slice(comma + 1) : data).replace(/\s+/g, "")
  if (payload.length === 0 || !base64.test(payload)) return undefined
  return new Uint8Array(Buffer.from(payload, "base64"))
}

const statusOf = (m: MediaRecord) => m.status ?? "ready"

/** The address where the parts of an upload are sent. */
export const uploadUrl = (publicBaseUrl: string, id: string) => `${publicBaseUrl.replace(/\/$/, "")}/v1/media/uploads/${id}`

/**
 * The media object of the API, rendered at the edge: `error` (stored as data) in `locale`, in the
 * current catalog's words, `docs` under `publicBaseUrl`.
 */
export const mediaView = (
  m: MediaRecord,
  options: { readonly locale?: Locale; readonly publicBaseUrl?: string; readonly upload?: UploadRecord | undefined } = {}
): MediaWire.Media => {
  const status = statusOf(m)
  const ready = status === "ready"
  const upload = options.upload
  return {
    id: m.id,
    status,
    kind: ready ? m.kind : null,
    mime: ready ? m.mime : null,
    size_bytes: ready || upload !== undefined ? m.sizeBytes : null,
    filename: m.filename,
    width: m.width,
    height: m.height,
    duration_seconds: m.durationSeconds,
    codec: m.codec ?? null,
    source_url: m.sourceUrl ?? null,
    error:
      m.error === undefined || m.error === null
        ? null
        : renderError(new PostwireError(m.error), options.locale ?? "en", options.publicBaseUrl ?? ""),
    created_at: formatInstant(m.createdAt),
    expires_at: upload !== undefined && upload.status === "receiving" ? formatInstant(upload.expiresAt) : null
  }
}

/**
 * A media item as the use-cases return it: the record and, while it is received in parts, its
 * upload. The server renders it with {@link mediaView} in the request's language.
 */
export interface MediaItem {
  readonly record: MediaRecord
  readonly upload: UploadRecord | undefined
}

const notFound = () => new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("media") } })

/** The fields of a ready item that probing a file gives. */
const probed = (sniffed: Exclude<SniffResult, { readonly _tag: "Unsupported" }>) => ({
  status: "ready" as const,
  kind: sniffed._tag === "Image" ? ("image" as const) : ("video" as const),
  mime: sniffed.mime,
  width: sniffed.width ?? null,
  height: sniffed.height ?? null,
  durationSeconds: sniffed._tag === "Video" ? (sniffed.durationSeconds ?? null) : null,
  codec: sniffed._tag === "Video" ? (sniffed.codec ?? null) : null,
  error: null
})

/** What an item is expected to be before its bytes are read: from a MIME type, else a file name. */
const expectedKind = (contentType: string | undefined, name: string | undefined): "image" | "video" => {
  if (contentType?.startsWith("image/")) return "image"
  if (contentType?.startsWith("video/")) return "video"
  return /\.(jpe?g|png|webp)$/i.test(name ?? "") ? "image" : "video"
}

/**
 * Stores bytes received whole (inline base64, or a form's file) after sniffing their format;
 * `field` names the request field an error points at.
 */
export const storeUploadedBytes = Effect.fn("media.storeBytes")(function* (
  caller: Caller,
  bytes: Uint8Array,
  filename: string | null,
  field: string
) {
  const store = yield* Store
  const blobs = yield* BlobStore
  if (bytes.length > MediaWire.maxInlineUploadBytes) {
    return yield* Effect.fail(
      new PostwireError({ code: "payload_too_large", field, details: { limit: MediaWire.maxInlineUploadBytes } })
    )
  }
  const sniffed = sniffMedia(bytes)
  if (sniffed._tag === "Unsupported") {
    return yield* Effect.fail(new PostwireError({ code: "unsupported_format", field }))
  }
  // An image that may have to be converted (a PNG for Instagram) is decoded whole now: a corrupt
  // one is refused here, not after a post was approved.
  const converter = yield* ImageConverter
  if (converter !== undefined && sniffed._tag === "Image" && sniffed.mime !== "image/jpeg") {
    const decoded = yield* Effect.result(converter.check(bytes))
    if (decoded._tag === "Failure") return yield* Effect.fail(new PostwireError({ code: "unsupported_format", field }))
  }
  const id = yield* Ids.use((ids) => ids.make("media"))
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const blobKey = `${caller.workspaceId}/${id}`
  yield* blobs.put(blobKey, bytes).pipe(Effect.orDie)
  const record: MediaRecord = {
    id,
    workspaceId: caller.workspaceId,
    sizeBytes: bytes.length,
    filename,
    blobKey,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    createdAt: at,
    updatedAt: at,
    sourceUrl: null,
    ...probed(sniffed)
  }
  yield* store.createMedia(record)
  return mediaView(record)
})

/** Stores uploaded bytes after checking their size and sniffing their format. */
export const uploadMedia = Effect.fn("media.upload")(function* (caller: Caller, request: MediaWire.UploadMediaRequest) {
  // Reject before decoding: base64 carries 3 bytes in every 4 characters.
  if (Math.floor((request.data.length * 3) / 4) > MediaWire.maxInlineUploadBytes + 3) {
    return yield* Effect.fail(
      new PostwireError({ code: "payload_too_large", field: "data", details: { limit: MediaWire.maxInlineUploadBytes } })
    )
  }
  const bytes = decodeInlineData(request.data)
  if (bytes === undefined) {
    return yield* Effect.fail(
      new PostwireError({ code: "invalid_request", field: "data", details: { detail: ErrorDetail.reason("base64") } })
    )
  }
  return yield* storeUploadedBytes(caller, bytes, request.filename ?? null, "data")
})

/** The last path segment of an address, decoded, for a file name. */
const nameFromUrl = (url: URL): string | null => {
  const last = url.pathname.split("/").filter((s) => s !== "").at(-1)
  if (last === undefined) return null
  try {
    return decodeURIComponent(last).slice(0, 255)
  } catch {
    return last.slice(0, 255)
  }
}

/**
 * Starts a URL import: the address is checked now (a visibly unsafe one is 400 `invalid_url`)
 * and fetched in the background by the media jobs; the item is `processing` until then.
 */
export const importMedia = Effect.fn("media.import")(function* (caller: Caller, request: MediaWire.ImportMediaRequest) {
  const store = yield* Store
  const settings = yield* WebhookSettings
  const checked = yield* checkDeliveryAddress(request.url.trim(), { allowLoopback: settings.allowLoopback }).pipe(
    Effect.catchTag("UnsafeUrl", (error) =>
      Effect.fail(new PostwireError({ code: "invalid_url", field: "url", details: { detail: describeUnsafeUrl(error) } }))
    )
  )
  const id = yield* Ids.use((ids) => ids.make("media"))
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const filename = request.filename ?? nameFromUrl(checked.url)
  const record: MediaRecord = {
    id,
    workspaceId: caller.workspaceId,
    status: "processing",
    kind: expectedKind(undefined, filename ?? undefined),
    mime: "",
    sizeBytes: 0,
    filename,
    width: null,
    height: null,
    durationSeconds: null,
    codec: null,
    error: null,
    sourceUrl: checked.url.href,
    blobKey: `${caller.workspaceId}/${id}`,
    sha256: "",
    createdAt: at,
    updatedAt: at
  }
  yield* store.createMedia(record)
  return mediaView(record)
})

const uploadView = (upload: UploadRecord, parts: ReadonlyArray<UploadPartRecord>, at: number) =>
  EngineConfig.use(
    (engine): Effect.Effect<MediaWire.MediaUpload> =>
      Effect.succeed({
        id: upload.mediaId,
        upload_url: uploadUrl(engine.publicBaseUrl, upload.mediaId),
        size: upload.size,
        part_size: upload.partSize,
        part_count: partCount(upload),
        parts_received: parts.map((p) => p.number),
        bytes_received: parts.reduce((n, p) => n + p.size, 0),
        status: upload.status === "completed" ? "completed" : at >= upload.expiresAt ? "expired" : "receiving",
        expires_at: formatInstant(upload.expiresAt)
      })
  )

const partCount = (upload: UploadRecord) => Math.ceil(upload.size / upload.partSize)

/** Starts a resumable upload and creates its media item, `processing` until it completes. */
export const createUpload = Effect.fn("media.createUpload")(function* (
  caller: Caller,
  request: MediaWire.CreateUploadRequest
) {
  const media = yield* MediaStore
  const blobs = yield* BlobStore
  const id = yield* Ids.use((ids) => ids.make("media"))
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const blobKey = `${caller.workspaceId}/${id}`
  const reference = yield* blobs.startParts(blobKey).pipe(Effect.orDie)
  const record: MediaRecord = {
    id,
    workspaceId: caller.workspaceId,
    status: "processing",
    kind: expectedKind(request.content_type, request.filename),
    mime: "",
    sizeBytes: request.size,
    filename: request.filename,
    width: null,
    height: null,
    durationSeconds: null,
    codec: null,
    error: null,
    sourceUrl: null,
    blobKey,
    sha256: "",
    createdAt: at,
    updatedAt: at
  }
  const upload: UploadRecord = {
    workspaceId: caller.workspaceId,
    mediaId: id,
    size: request.size,
    partSize: MediaWire.uploadPartBytes,
    reference,
    status: "receiving",
    createdAt: at,
    expiresAt: at + uploadTtlMs
  }
  yield* media.createUpload(record, upload)
  return yield* uploadView(upload, [], at)
})

const findUpload = Effect.fn("media.findUpload")(function* (caller: Caller, id: Id.MediaId) {
  const media = yield* MediaStore
  const upload = yield* media.getUpload(caller.workspaceId, id)
  if (Option.isNone(upload)) return yield* Effect.fail(notFound())
  yield* refuseLiveMedia(caller, id)
  return upload.value
})

/** What has arrived of an upload. */
export const getUpload = Effect.fn("media.getUpload")(function* (caller: Caller, id: Id.MediaId) {
  const media = yield* MediaStore
  const upload = yield* findUpload(caller, id)
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  return yield* uploadView(upload, yield* media.listUploadParts(caller.workspaceId, id), at)
})

const invalidState = (detail: ReturnType<typeof ErrorDetail.reason>) =>
  new PostwireError({ code: "invalid_state", details: { resource: ErrorDetail.resource("media"), detail } })

const openUpload = (upload: UploadRecord, at: number) => {
  if (upload.status !== "receiving") return Effect.fail(invalidState(ErrorDetail.reason("upload_not_open", { status: upload.status })))
  if (at >= upload.expiresAt) return Effect.fail(invalidState(ErrorDetail.reason("upload_expired")))
  return Effect.void
}

/** Parses `bytes start-end/size` into the part it must cover exactly; `undefined` when it does not. */
export const partOfRange = (header: string, upload: Pick<UploadRecord, "size" | "partSize">) => {
  const match = /^\s*bytes\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(header)
  if (match === null) return undefined
  const [start, end, total] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (total !== upload.size || start % upload.partSize !== 0 || start >= upload.size) return undefined
  const expectedEnd = Math.min(start + upload.partSize, upload.size) - 1
  if (end !== expectedEnd) return undefined
  return { number: start / upload.partSize, length: end - start + 1 }
}

/**
 * Stores one part of an upload from the request body, streamed to storage. A body of the wrong
 * length (a connection cut short) stores nothing.
 */
export const receiveUploadPart = Effect.fn("media.receivePart")(function* <E>(
  caller: Caller,
  id: Id.MediaId,
  contentRange: string,
  body: Stream.Stream<Uint8Array, E>
) {
  const media = yield* MediaStore
  const blobs = yield* BlobStore
  const store = yield* Store
  const upload = yield* findUpload(caller, id)
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  yield* openUpload(upload, at)
  const part = partOfRange(contentRange, upload)
  if (part === undefined) {
    return yield* Effect.fail(
      new PostwireError({
        code: "invalid_request",
        field: "content-range",
        details: { detail: ErrorDetail.reason("content_range", { part_size: upload.partSize, size: upload.size }) }
      })
    )
  }
  const item = yield* store.getMedia(caller.workspaceId, id)
  if (Option.isNone(item)) return yield* Effect.fail(notFound())
  // The body is the client's: one longer than the part is refused as soon as it passes it, and a
  // body that could not be read (over the transport's limit, cut off) is the client's mistake too.
  let received = 0
  const wrongLength = () =>
    new PostwireError({
      code: "invalid_request",
      field: "body",
      details: { detail: ErrorDetail.reason("part_length", { received, expected: part.length }) }
    })
  const bounded = body.pipe(
    Stream.mapError(wrongLength),
    Stream.mapEffect((chunk) => {
      received += chunk.length
      return received > part.length ? Effect.fail(wrongLength()) : Effect.succeed(chunk)
    })
  )
  const stored = yield* blobs.writePart(item.value.blobKey, upload.reference, part.number, part.length, bounded).pipe(
    Effect.mapError((error) =>
      error instanceof PartLengthMismatch
        ? new PostwireError({
            code: "invalid_request",
            field: "body",
            details: { detail: ErrorDetail.reason("part_length", { received: error.received, expected: error.expected }) }
          })
        : error
    )
  )
  yield* media.putUploadPart(caller.workspaceId, id, { number: part.number, size: part.length, tag: stored.tag })
  return yield* uploadView(upload, yield* media.listUploadParts(caller.workspaceId, id), at)
})

/**
 * Completes an upload: every part must be there; they are joined in storage, the file is probed,
 * and the item becomes `ready` (or `failed` with `unsupported_format`, which is also the answer).
 */
export const completeUpload = Effect.fn("media.completeUpload")(function* (caller: Caller, id: Id.MediaId) {
  const media = yield* MediaStore
  const blobs = yield* BlobStore
  const store = yield* Store
  const upload = yield* findUpload(caller, id)
  const found = yield* store.getMedia(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* Effect.fail(notFound())
  const item = found.value
  if (upload.status === "completed") return { record: item, upload } satisfies MediaItem
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  yield* openUpload(upload, at)
  const parts = yield* media.listUploadParts(caller.workspaceId, id)
  const have = new Set(parts.map((p) => p.number))
  const missing = Array.from({ length: partCount(upload) }, (_, n) => n).filter((n) => !have.has(n))
  if (missing.length > 0) {
    return yield* Effect.fail(
      invalidState(ErrorDetail.reason("upload_parts_missing", { count: missing.length, part: missing[0]! }))
    )
  }
  const joined = yield* Effect.result(blobs.joinParts(item.blobKey, upload.reference, parts))
  if (joined._tag === "Failure") {
    // Two completes at once: the one that joined first has made the item; answer it.
    const now = yield* media.getUpload(caller.workspaceId, id)
    const current = yield* store.getMedia(caller.workspaceId, id)
    if (Option.isSome(now) && now.value.status === "completed" && Option.isSome(current)) {
      return { record: current.value, upload: now.value } satisfies MediaItem
    }
    return yield* Effect.die(joined.failure)
  }
  const size = joined.success
  const sniffed = size === upload.size ? yield* probeStoredMedia(blobs, item.blobKey, size).pipe(Effect.orDie) : undefined
  const done = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const decodes = sniffed === undefined || sniffed._tag === "Unsupported" ? false : yield* Renditions.storedImageDecodes(blobs, item.blobKey, size, sniffed)
  if (sniffed === undefined || sniffed._tag === "Unsupported" || !decodes) {
    const failure: MediaFailure = { code: "unsupported_format" }
    yield* media.completeUpload({ ...item, status: "failed", error: failure, updatedAt: done })
    return yield* Effect.fail(new PostwireError(failure))
  }
  const ready: MediaRecord = { ...item, ...probed(sniffed), sizeBytes: size, updatedAt: done }
  yield* media.completeUpload(ready)
  return { record: ready, upload: { ...upload, status: "completed" } } satisfies MediaItem
})

/** Refuses a test key a media item that a post of a live account uses. */
const refuseLiveMedia = Effect.fn("media.checkMode")(function* (caller: Caller, id: Id.MediaId) {
  if (caller.kind !== "test") return
  const used = yield* MediaStore.use((media) => media.usedByLivePosts(caller.workspaceId, [id]))
  yield* refuseLiveToTestKey(caller, used.has(id))
})

/** One media item. */
export const getMedia = Effect.fn("media.get")(function* (caller: Caller, id: Id.MediaId) {
  const store = yield* Store
  const media = yield* MediaStore
  const found = yield* store.getMedia(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* Effect.fail(notFound())
  yield* refuseLiveMedia(caller, id)
  const upload = statusOf(found.value) === "processing" ? yield* media.getUpload(caller.workspaceId, id) : Option.none()
  return { record: found.value, upload: Option.getOrUndefined(upload) } satisfies MediaItem
})

/** The workspace's media, newest first. */
export const listMedia = Effect.fn("media.list")(function* (caller: Caller, query: MediaWire.ListMediaQuery) {
  const media = yield* MediaStore
  const engine = yield* EngineConfig
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const digest = filterDigest(`media:${caller.workspaceId}`, {})
  let after: { readonly sortKey: number; readonly id: string } | undefined
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(engine.keyring, query.cursor, digest, at, engine.cursorTtlMs)
    if (Option.isNone(decoded)) return yield* Effect.fail(new PostwireError({ code: "invalid_cursor", field: "cursor" }))
    after = decoded.value
  }
  const limit = query.limit ?? 25
  const rows = yield* media.listMedia(caller.workspaceId, after, limit + 1)
  const items = rows.slice(0, limit)
  const last = items.at(-1)
  const hasMore = rows.length > limit && last !== undefined
  const data: Array<MediaItem> = []
  // A test key sees no media a live post uses; the cursor still follows the page as stored.
  const live = caller.kind === "test" ? yield* media.usedByLivePosts(caller.workspaceId, items.map((m) => m.id)) : new Set<string>()
  for (const item of items) {
    if (!sees(caller, live.has(item.id))) continue
    const upload = statusOf(item) === "processing" ? yield* media.getUpload(caller.workspaceId, item.id) : Option.none()
    data.push({ record: item, upload: Option.getOrUndefined(upload) })
  }
  return {
    data,
    cursor: {
      next: hasMore ? encodeCursor(engine.keyring, { sortKey: last.createdAt, id: last.id }, digest, at) : null,
      has_more: hasMore
    }
  }
})

/** Deletes an item and its bytes, unless a post that has not finished publishing uses it. */
export const deleteMedia = Effect.fn("media.delete")(function* (caller: Caller, id: Id.MediaId) {
  const media = yield* MediaStore
  const blobs = yield* BlobStore
  yield* refuseLiveMedia(caller, id)
  const result = yield* media.deleteMedia(caller.workspaceId, id)
  if (result._tag === "NotFound") return yield* Effect.fail(notFound())
  if (result._tag === "InUse") {
    return yield* Effect.fail(invalidState(ErrorDetail.reason("media_in_use", { post_id: result.postId })))
  }
  // The row is gone: bytes left behind by a failed removal are unreachable, never served.
  if (result.upload !== undefined && result.upload.status === "receiving") {
    yield* blobs.abortParts(result.media.blobKey, result.upload.reference).pipe(Effect.ignore)
  }
  yield* blobs.remove(result.media.blobKey).pipe(Effect.ignore)
  // A rendition made for a platform (a JPEG of a PNG) goes with it; none is no error.
  yield* blobs.remove(Renditions.jpegKey(result.media.blobKey)).pipe(Effect.ignore)
  return { id, deleted: true as const }
})
