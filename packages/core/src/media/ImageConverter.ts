/**
 * The `ImageConverter` reference: turns an image a platform cannot take into a JPEG rendition
 * (Instagram publishes JPEG only). Core keeps no image codec: the server provides one built on
 * `sharp` (libvips); without one (`undefined`, the default) images are sent as they are and the
 * platform's own refusal stands.
 *
 * @since 0.4.0
 */
import { Context, Data, type Effect } from "effect"

/** A JPEG made from an image: its bytes and pixel size. */
export interface JpegRendition {
  readonly bytes: Uint8Array
  readonly width: number
  readonly height: number
}

/** The image could not be read (corrupt, truncated, or a format the codec does not read). */
export class ImageConversionError extends Data.TaggedError("ImageConversionError")<{
  /** What the codec said, for the logs. */
  readonly reason: string
}> {}

/** The operations of an image codec. */
export interface ImageConverterShape {
  /**
   * A JPEG of `bytes` (PNG, WebP: the first frame of an animation): quality about 90, sRGB, the same pixel
   * size, the orientation applied, transparency flattened onto white, no other metadata.
   */
  readonly toJpeg: (bytes: Uint8Array) => Effect.Effect<JpegRendition, ImageConversionError>
  /** Decodes `bytes` whole and fails when they do not make an image (refusing it up front). */
  readonly check: (bytes: Uint8Array) => Effect.Effect<void, ImageConversionError>
}

/** The image codec of this engine; `undefined`: none, images are never converted. */
export const ImageConverter = Context.Reference<ImageConverterShape | undefined>("postwire/ImageConverter", {
  defaultValue: () => undefined
})
