/**
 * Media on the wire: inline base64 upload and the media object.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Instant } from "./Timestamp.ts"

/** Largest inline upload, in decoded bytes (10 MiB). */
export const maxInlineUploadBytes = 10 * 1024 * 1024

/** POST /media: inline base64 bytes; the type is read from the bytes, never from `filename`. */
export const UploadMediaRequest = Schema.Struct({
  data: Schema.String,
  filename: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255)))
})
export type UploadMediaRequest = typeof UploadMediaRequest.Type

/** A media item. */
export const Media = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literals(["image", "video"]),
  mime: Schema.String,
  size_bytes: Schema.Number,
  filename: Schema.NullOr(Schema.String),
  width: Schema.NullOr(Schema.Number),
  height: Schema.NullOr(Schema.Number),
  duration_seconds: Schema.NullOr(Schema.Number),
  status: Schema.Literals(["ready"]),
  created_at: Instant
})
export type Media = typeof Media.Type
