/**
 * Media use-cases: inline base64 upload (the type is read from the bytes) and retrieval.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { Effect, Option } from "effect"
import { ErrorDetail, formatInstant, Media as MediaWire, PostwireError } from "@postwire/domain"
import type { Caller } from "../Caller.ts"
import { Ids } from "../ids/Ids.ts"
import type { MediaRecord } from "../store/Records.ts"
import { Store } from "../store/Store.ts"
import { BlobStore } from "./BlobStore.ts"
import { sniffMedia } from "./MediaSniffer.ts"

const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Decodes inline base64 (standard or URL-safe; a `data:` URL prefix is accepted). */
export const decodeInlineData = (data: string): Uint8Array | undefined => {
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1
  const payload = (comma >= 0 ? data.slice(comma + 1) : data).replace(/\s+/g, "")
  if (payload.length === 0 || !base64.test(payload)) return undefined
  return new Uint8Array(Buffer.from(payload, "base64"))
}

/** The media object of the API. */
export const mediaView = (m: MediaRecord): MediaWire.Media => ({
  id: m.id,
  kind: m.kind,
  mime: m.mime,
  size_bytes: m.sizeBytes,
  filename: m.filename,
  width: m.width,
  height: m.height,
  duration_seconds: m.durationSeconds,
  status: "ready",
  created_at: formatInstant(m.createdAt)
})

/** Stores uploaded bytes after checking their size and sniffing their format. */
export const uploadMedia = Effect.fn("media.upload")(function* (caller: Caller, request: MediaWire.UploadMediaRequest) {
  const store = yield* Store
  const blobs = yield* BlobStore
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
  if (bytes.length > MediaWire.maxInlineUploadBytes) {
    return yield* Effect.fail(
      new PostwireError({ code: "payload_too_large", field: "data", details: { limit: MediaWire.maxInlineUploadBytes } })
    )
  }
  const sniffed = sniffMedia(bytes)
  if (sniffed._tag === "Unsupported") {
    return yield* Effect.fail(new PostwireError({ code: "unsupported_format", field: "data" }))
  }
  const id = yield* Ids.use((ids) => ids.make("media"))
  const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
  const blobKey = `${caller.workspaceId}/${id}`
  yield* blobs.put(blobKey, bytes).pipe(Effect.orDie)
  const record: MediaRecord = {
    id,
    workspaceId: caller.workspaceId,
    kind: sniffed._tag === "Image" ? "image" : "video",
    mime: sniffed.mime,
    sizeBytes: bytes.length,
    filename: request.filename ?? null,
    width: sniffed.width ?? null,
    height: sniffed.height ?? null,
    durationSeconds: sniffed._tag === "Video" ? (sniffed.durationSeconds ?? null) : null,
    blobKey,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    createdAt: at
  }
  yield* store.createMedia(record)
  return mediaView(record)
})

/** One media item. */
export const getMedia = Effect.fn("media.get")(function* (caller: Caller, id: string) {
  const store = yield* Store
  const found = yield* store.getMedia(caller.workspaceId, id)
  if (Option.isNone(found)) {
    return yield* Effect.fail(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("media") } }))
  }
  return mediaView(found.value)
})
