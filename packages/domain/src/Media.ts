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
  /** The file's bytes in base64 (standard or URL-safe; a `data:` URL prefix is accepted), at most 10 MiB decoded (400 `payload_too_large`). JPEG, PNG and WebP images, MP4 and QuickTime videos; the type is read from the bytes (400 `unsupported_format` otherwise). */
  data: Schema.String.annotate({ description: "The file's bytes in base64 (standard or URL-safe; a `data:` URL prefix is accepted), at most 10 MiB decoded (400 `payload_too_large`). JPEG, PNG and WebP images, MP4 and QuickTime videos; the type is read from the bytes (400 `unsupported_format` otherwise)." }),
  /** Original file name, at most 255 characters, kept for display only. */
  filename: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255)).annotate({ description: "Original file name, at most 255 characters, kept for display only." }))
}).annotate({
  description: "A file to upload inline.",
  examples: [{ data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", filename: "pixel.png" }]
})
export type UploadMediaRequest = typeof UploadMediaRequest.Type

/** A media item. */
export const Media = Schema.Struct({
  /** Unique identifier of the media item, `med_…`; use it in a post's `media`. */
  id: Schema.String.annotate({ description: "Unique identifier of the media item, `med_…`; use it in a post's `media`." }),
  /** Whether the file is an image or a video. */
  kind: Schema.Literals(["image", "video"]).annotate({ description: "Whether the file is an image or a video." }),
  /** MIME type read from the bytes: `image/jpeg`, `image/png`, `image/webp`, `video/mp4` or `video/quicktime`. */
  mime: Schema.String.annotate({ description: "MIME type read from the bytes: `image/jpeg`, `image/png`, `image/webp`, `video/mp4` or `video/quicktime`." }),
  /** Size of the file in bytes. */
  size_bytes: Schema.Int.annotate({ description: "Size of the file in bytes." }),
  /** The `filename` sent with the upload; `null` when none was. */
  filename: Schema.NullOr(Schema.String).annotate({ description: "The `filename` sent with the upload; `null` when none was." }),
  /** Width in pixels; `null` when it could not be read from the file. */
  width: Schema.NullOr(Schema.Int).annotate({ description: "Width in pixels; `null` when it could not be read from the file." }),
  /** Height in pixels; `null` when it could not be read from the file. */
  height: Schema.NullOr(Schema.Int).annotate({ description: "Height in pixels; `null` when it could not be read from the file." }),
  /** Length of a video in seconds; `null` for images, or when it could not be read. */
  duration_seconds: Schema.NullOr(Schema.Finite).annotate({ description: "Length of a video in seconds; `null` for images, or when it could not be read." }),
  /** Always `ready`: an uploaded file can be used in a post at once. */
  status: Schema.Literals(["ready"]).annotate({ description: "Always `ready`: an uploaded file can be used in a post at once." }),
  /** When the file was uploaded, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the file was uploaded, ISO 8601 in UTC with milliseconds." })
}).annotate({ description: "An uploaded image or video." })
export type Media = typeof Media.Type
