/**
 * Renditions: a file derived from a media item, stored beside its bytes, for a platform that does
 * not take the original (a JPEG of a PNG for Instagram). A rendition is made once, the first time
 * a target needs it, under the original's storage key plus a suffix (`…/med_1` → `…/med_1.jpg`),
 * in whichever storage holds the original (a directory, a bucket, memory); it is served at the
 * item's signed address with the same suffix (`/media-files/ws_1/med_1.jpg?exp=…&sig=…`, signed
 * for that path) and deleted with the item.
 *
 * @since 0.4.0
 */
import { Effect } from "effect"
import type { MediaRecord } from "../store/PostStore.ts"
import type { BlobStoreShape } from "./BlobStore.ts"
import { ImageConversionError, ImageConverter, type ImageConverterShape } from "./ImageConverter.ts"

/** The suffix of a JPEG rendition, on its storage key and on its address's media id. */
export const jpegSuffix = ".jpg"

/** Where the JPEG rendition of the item stored under `blobKey` lives. */
export const jpegKey = (blobKey: string): string => `${blobKey}${jpegSuffix}`

/** The id in the signed address of the JPEG rendition of media `mediaId`. */
export const jpegAddressId = (mediaId: string): string => `${mediaId}${jpegSuffix}`

/** The media id and whether the rendition is asked for, from an address's id (`med_1.jpg`). */
export const parseAddressId = (id: string): { readonly mediaId: string; readonly jpeg: boolean } =>
  id.endsWith(jpegSuffix) ? { mediaId: id.slice(0, -jpegSuffix.length), jpeg: true } : { mediaId: id, jpeg: false }

/**
 * The largest original converted (bytes): Instagram takes images up to 8 MiB, and a file read whole
 * into memory must stay small. Larger originals are refused, not converted.
 */
export const maxSourceBytes = 64 * 1024 * 1024

/** Whether an item is an image Instagram-like platforms cannot take as it is (not a JPEG). */
export const needsJpeg = (record: Pick<MediaRecord, "kind" | "mime">): boolean =>
  record.kind === "image" && record.mime !== "" && record.mime !== "image/jpeg"

/**
 * Makes the JPEG rendition of `record` unless it is already stored; answers its size in bytes.
 * Two workers making it at once write the same bytes.
 */
export const ensureJpeg = (
  blobs: BlobStoreShape,
  converter: ImageConverterShape,
  record: Pick<MediaRecord, "blobKey" | "sizeBytes">
): Effect.Effect<number, ImageConversionError> =>
  blobs.size(jpegKey(record.blobKey)).pipe(
    Effect.catch(() =>
      Effect.gen(function* () {
        if (record.sizeBytes > maxSourceBytes) {
          return yield* new ImageConversionError({ reason: `larger than ${maxSourceBytes} bytes` })
        }
        const original = yield* blobs.get(record.blobKey).pipe(Effect.mapError((e) => new ImageConversionError({ reason: String(e.cause) })))
        const rendition = yield* converter.toJpeg(original)
        yield* blobs.put(jpegKey(record.blobKey), rendition.bytes).pipe(Effect.mapError((e) => new ImageConversionError({ reason: String(e.cause) })))
        return rendition.bytes.length
      })
    )
  )

/**
 * Whether a stored image that may have to be converted decodes whole (a PNG or WebP): checked
 * when an upload in parts completes and when an import arrives, as inline uploads are. `true`
 * without a codec, for a JPEG (sent as it is), a video, and a file larger than
 * {@link maxSourceBytes} (never converted: its targets fail instead).
 */
export const storedImageDecodes = (
  blobs: BlobStoreShape,
  blobKey: string,
  size: number,
  sniffed: { readonly _tag: string; readonly mime?: string }
): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const converter = yield* ImageConverter
    if (converter === undefined || sniffed._tag !== "Image" || sniffed.mime === "image/jpeg" || size > maxSourceBytes) return true
    const bytes = yield* blobs.get(blobKey).pipe(Effect.option)
    if (bytes._tag === "None") return true
    const checked = yield* Effect.result(converter.check(bytes.value))
    return checked._tag === "Success"
  })
