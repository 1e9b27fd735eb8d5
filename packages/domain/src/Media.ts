/**
 * Media on the wire: inline base64 and form uploads, URL imports, resumable uploads in parts,
 * and the media object with its lifecycle (`processing`, `ready`, `failed`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Multipart } from "effect/http"
import { ErrorObject } from "./ApiError.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Instant } from "./Timestamp.ts"

/** Largest inline upload, in decoded bytes (10 MiB); also the largest `multipart/form-data` file. */
export const maxInlineUploadBytes = 10 * 1024 * 1024

/** Largest file of a resumable upload or a URL import (4 GiB). */
export const maxUploadBytes = 4 * 1024 * 1024 * 1024

/** Size of every part of a resumable upload but the last (16 MiB). */
export const uploadPartBytes = 16 * 1024 * 1024

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

/** Where a media item is in its life. */
export const MediaStatus = Schema.Literals(["processing", "ready", "failed"]).annotate({ description: "`processing` while the bytes arrive (a resumable upload or a URL import) and are checked; `ready` once they can be published; `failed` when they never will be (see `error`)." })
export type MediaStatus = typeof MediaStatus.Type

/** A media item. */
export const Media = Schema.Struct({
  /** Unique identifier of the media item, `med_…`; use it in a post's `media`. */
  id: Schema.String.annotate({ description: "Unique identifier of the media item, `med_…`; use it in a post's `media`." }),
  /** `processing` while the bytes arrive or are checked, `ready` once the item can be published, `failed` when it never will be (`error` says why). A post may name an item still `processing`: its targets wait until it is `ready`, and fail with its `error` if it fails. */
  status: MediaStatus.annotate({ description: "`processing` while the bytes arrive or are checked, `ready` once the item can be published, `failed` when it never will be (`error` says why). A post may name an item still `processing`: its targets wait until it is `ready`, and fail with its `error` if it fails." }),
  /** Whether the file is an image or a video; `null` until it is `ready`. */
  kind: Schema.NullOr(Schema.Literals(["image", "video"])).annotate({ description: "Whether the file is an image or a video; `null` until it is `ready`." }),
  /** MIME type read from the bytes: `image/jpeg`, `image/png`, `image/webp`, `video/mp4` or `video/quicktime`; `null` until it is `ready`. */
  mime: Schema.NullOr(Schema.String).annotate({ description: "MIME type read from the bytes: `image/jpeg`, `image/png`, `image/webp`, `video/mp4` or `video/quicktime`; `null` until it is `ready`." }),
  /** Size of the file in bytes: the announced size of a resumable upload, the stored size once `ready`; `null` while a URL import has not finished. */
  size_bytes: Schema.NullOr(Schema.Int).annotate({ description: "Size of the file in bytes: the announced size of a resumable upload, the stored size once `ready`; `null` while a URL import has not finished." }),
  /** The `filename` sent with the upload (or the last path segment of an imported URL); `null` when none was. */
  filename: Schema.NullOr(Schema.String).annotate({ description: "The `filename` sent with the upload (or the last path segment of an imported URL); `null` when none was." }),
  /** Width in pixels, as displayed; `null` until `ready`, or when it could not be read from the file. */
  width: Schema.NullOr(Schema.Int).annotate({ description: "Width in pixels, as displayed; `null` until `ready`, or when it could not be read from the file." }),
  /** Height in pixels, as displayed; `null` until `ready`, or when it could not be read from the file. */
  height: Schema.NullOr(Schema.Int).annotate({ description: "Height in pixels, as displayed; `null` until `ready`, or when it could not be read from the file." }),
  /** Length of a video in seconds; `null` for images, until `ready`, or when it could not be read. */
  duration_seconds: Schema.NullOr(Schema.Finite).annotate({ description: "Length of a video in seconds; `null` for images, until `ready`, or when it could not be read." }),
  /** The video track's codec as its sample entry names it (`avc1`, `hvc1`, `hev1`, `av01`, `vp09`, …); `null` for images, until `ready`, or when the file has no readable video track. */
  codec: Schema.NullOr(Schema.String).annotate({ description: "The video track's codec as its sample entry names it (`avc1`, `hvc1`, `hev1`, `av01`, `vp09`, …); `null` for images, until `ready`, or when the file has no readable video track." }),
  /** The address a URL import fetched from; `null` for uploads. */
  source_url: Schema.NullOr(Schema.String).annotate({ description: "The address a URL import fetched from; `null` for uploads." }),
  /** Why the item `failed`, in the shared error shape (`unsupported_format`, `payload_too_large`, `invalid_url`, …); `null` otherwise. */
  error: Schema.NullOr(ErrorObject).annotate({ description: "Why the item `failed`, in the shared error shape (`unsupported_format`, `payload_too_large`, `invalid_url`, …); `null` otherwise." }),
  /** When the item was created, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the item was created, ISO 8601 in UTC with milliseconds." }),
  /** When an upload still receiving parts expires with its item (24 hours after it started); `null` otherwise. An item no post names is deleted 7 days after its creation. */
  expires_at: Schema.NullOr(Instant).annotate({ description: "When an upload still receiving parts expires with its item (24 hours after it started); `null` otherwise. An item no post names is deleted 7 days after its creation." })
}).annotate({ description: "An image or video to publish, and where it is in its life." })
export type Media = typeof Media.Type

/** POST /media with `url`: import a file from a public https address in the background. */
export const ImportMediaRequest = Schema.Struct({
  /** A public https address to fetch the file from, at most 2048 characters. It is checked like a webhook url (every address the name resolves to, and every redirect, must be public; 400 `invalid_url` when it visibly is not), then fetched in the background: the answer is 202 with the item `processing`. At most 4 GiB, within 10 minutes. */
  url: Schema.String.check(Schema.isMaxLength(2048)).annotate({ description: "A public https address to fetch the file from, at most 2048 characters. It is checked like a webhook url (every address the name resolves to, and every redirect, must be public; 400 `invalid_url` when it visibly is not), then fetched in the background: the answer is 202 with the item `processing`. At most 4 GiB, within 10 minutes." }),
  /** File name to show, at most 255 characters; defaults to the last segment of the url's path. */
  filename: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))).annotate({ description: "File name to show, at most 255 characters; defaults to the last segment of the url's path." })
}).annotate({
  description: "A file to import from a public https address.",
  examples: [{ url: "https://cdn.example.com/videos/launch.mp4" }]
})
export type ImportMediaRequest = typeof ImportMediaRequest.Type

/** The JSON bodies of POST /media: inline bytes or a URL to import. */
export const CreateMediaRequest = Schema.Union([UploadMediaRequest, ImportMediaRequest]).annotate({
  description: "Either `data` (inline base64, answered 201 with the item `ready`) or `url` (imported in the background, answered 202 with the item `processing`)."
})
export type CreateMediaRequest = typeof CreateMediaRequest.Type

/** POST /media as `multipart/form-data` (for `curl -F file=@photo.jpg`). */
export const UploadMediaForm = Schema.Struct({
  /** The file, at most 10 MiB (400 `payload_too_large`); JPEG, PNG, WebP, MP4 or QuickTime, read from the bytes. */
  file: Multipart.SingleFileSchema.annotate({ description: "The file, at most 10 MiB (400 `payload_too_large`); JPEG, PNG, WebP, MP4 or QuickTime, read from the bytes." }),
  /** Name to show instead of the file's own name, at most 255 characters. */
  filename: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255)).annotate({ description: "Name to show instead of the file's own name, at most 255 characters." }))
}).annotate({ description: "A file sent as a form field named `file`." })
export type UploadMediaForm = typeof UploadMediaForm.Type

/** POST /media/uploads: start a resumable upload. */
export const CreateUploadRequest = Schema.Struct({
  /** Name of the file, 1 to 255 characters, kept for display only. */
  filename: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)).annotate({ description: "Name of the file, 1 to 255 characters, kept for display only." }),
  /** Exact size of the whole file in bytes, from 1 to 4 GiB (4294967296). Completing the upload checks that exactly this many bytes arrived. */
  size: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxUploadBytes })).annotate({ description: "Exact size of the whole file in bytes, from 1 to 4 GiB (4294967296). Completing the upload checks that exactly this many bytes arrived." }),
  /** The file's MIME type as the client believes it; informative only, the type is read from the bytes when the upload completes. */
  content_type: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))).annotate({ description: "The file's MIME type as the client believes it; informative only, the type is read from the bytes when the upload completes." })
}).annotate({
  description: "A file to send in parts.",
  examples: [{ filename: "launch.mp4", size: 734003200, content_type: "video/mp4" }]
})
export type CreateUploadRequest = typeof CreateUploadRequest.Type

/** A resumable upload: where to send the parts and which have arrived. */
export const MediaUpload = Schema.Struct({
  /** The media item's id, `med_…`; the item is `processing` until the upload completes. */
  id: Schema.String.annotate({ description: "The media item's id, `med_…`; the item is `processing` until the upload completes." }),
  /** Where to `PUT` each part, with the API key and a `Content-Range: bytes start-end/size` header; `GET` it to see what has arrived, `POST` to `{upload_url}/complete` to finish. */
  upload_url: Schema.String.annotate({ description: "Where to `PUT` each part, with the API key and a `Content-Range: bytes start-end/size` header; `GET` it to see what has arrived, `POST` to `{upload_url}/complete` to finish." }),
  /** The file's announced size in bytes. */
  size: Schema.Int.annotate({ description: "The file's announced size in bytes." }),
  /** Size of every part but the last, in bytes: part `n` (from 0) covers bytes `n × part_size` up to the next part or the end of the file. */
  part_size: Schema.Int.annotate({ description: "Size of every part but the last, in bytes: part `n` (from 0) covers bytes `n × part_size` up to the next part or the end of the file." }),
  /** How many parts make the file. */
  part_count: Schema.Int.annotate({ description: "How many parts make the file." }),
  /** Numbers of the parts stored so far, in order. Send the others (in any order, several at once if you like); a part sent again replaces the earlier copy. */
  parts_received: Schema.Array(Schema.Int).annotate({ description: "Numbers of the parts stored so far, in order. Send the others (in any order, several at once if you like); a part sent again replaces the earlier copy." }),
  /** Bytes stored so far, the sum of the parts received. */
  bytes_received: Schema.Int.annotate({ description: "Bytes stored so far, the sum of the parts received." }),
  /** `receiving` until `complete` is called, then `completed`; `expired` when 24 hours passed first. */
  status: Schema.Literals(["receiving", "completed", "expired"]).annotate({ description: "`receiving` until `complete` is called, then `completed`; `expired` when 24 hours passed first." }),
  /** When an upload that has not completed is deleted with its parts (24 hours after it started). */
  expires_at: Instant.annotate({ description: "When an upload that has not completed is deleted with its parts (24 hours after it started)." })
}).annotate({ description: "A resumable upload and what has arrived so far." })
export type MediaUpload = typeof MediaUpload.Type

/** The `Content-Range` header of a part. */
export const UploadPartHeaders = Schema.Struct({
  /** `bytes start-end/size`: the part's first and last byte (inclusive) and the file's size. A part is whole: `start` is a multiple of `part_size`, and the range runs to the next multiple or to the end of the file. */
  "content-range": Schema.String.annotate({ description: "`bytes start-end/size`: the part's first and last byte (inclusive) and the file's size. A part is whole: `start` is a multiple of `part_size`, and the range runs to the next multiple or to the end of the file." })
})

/** The query of GET /media. */
export const ListMediaQuery = Schema.Struct({
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListMediaQuery = typeof ListMediaQuery.Type

/** A page of media items. */
export const MediaList = ListEnvelope(Media)
export type MediaList = typeof MediaList.Type

/** The answer to DELETE /media/{id}. */
export const DeletedMedia = Schema.Struct({
  /** The id of the deleted media item. */
  id: Schema.String.annotate({ description: "The id of the deleted media item." }),
  /** Always `true`. */
  deleted: Schema.Literal(true).annotate({ description: "Always `true`." })
}).annotate({ description: "A deleted media item." })
export type DeletedMedia = typeof DeletedMedia.Type
