/**
 * The image codec the server gives the engine (`ImageConverter`): `sharp`, libvips with prebuilt
 * binaries shipped in npm packages (`@img/sharp-<os>-<arch>`), so installing `@postwire/server`
 * needs no compiler and no install script. It is loaded the first time an image is converted or
 * checked, never at start.
 *
 * A rendition keeps the pixel size (Instagram scales images itself between 320 and 1440 pixels
 * wide: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media,
 * "Image Specifications"), applies the EXIF orientation, flattens transparency onto white, converts
 * to sRGB and writes a baseline JPEG at quality 90 without the original's metadata.
 *
 * @since 0.4.0
 */
import { ImageConversionError, ImageConverter, type ImageConverterShape } from "@postwire/core"
import { Effect, Layer } from "effect"

type Sharp = typeof import("sharp").default

let loaded: Promise<Sharp> | undefined
const load = (): Promise<Sharp> => {
  // The CommonJS build of this package may receive sharp's `module.exports` itself.
  loaded ??= import("sharp").then((module) => (module.default ?? (module as unknown as Sharp)) as Sharp)
  return loaded
}

const failed = (cause: unknown) => new ImageConversionError({ reason: cause instanceof Error ? cause.message : String(cause) })

/** The codec over sharp. */
export const converter: ImageConverterShape = {
  toJpeg: (bytes) =>
    Effect.tryPromise({
      try: async () => {
        const sharp = await load()
        // `failOn: "warning"` refuses a truncated or corrupt file instead of converting what part
        // of it decodes; only the first frame of an animated image is read.
        const { data, info } = await sharp(bytes, { failOn: "warning", animated: false, limitInputPixels: 100_000_000 })
          .rotate()
          .flatten({ background: "#ffffff" })
          .toColourspace("srgb")
          .jpeg({ quality: 90, chromaSubsampling: "4:2:0" })
          .toBuffer({ resolveWithObject: true })
        return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height }
      },
      catch: failed
    }),
  check: (bytes) =>
    Effect.tryPromise({
      try: async () => {
        // Without a codec on this machine (no prebuilt sharp for it) nothing can be checked: the
        // upload is taken on its header, as before sharp, and a conversion fails the target later.
        const sharp = await load().catch(() => undefined)
        if (sharp === undefined) return
        await sharp(bytes, { failOn: "warning", animated: false, limitInputPixels: 100_000_000 }).raw().toBuffer()
      },
      catch: failed
    })
}

/** Provides the sharp codec to the engine. */
export const layer = Layer.succeed(ImageConverter)(converter)
