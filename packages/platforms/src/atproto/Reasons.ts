/**
 * Bluesky's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  atproto_text_bytes: {
    en: "a Bluesky post's text is at most {max} bytes in UTF-8; this one has {count}",
    id: "teks unggahan Bluesky paling banyak {max} byte dalam UTF-8; teks ini {count} byte"
  },
  atproto_images_or_video: {
    en: "a Bluesky post takes up to 4 images or one video, not both",
    id: "unggahan Bluesky berisi hingga 4 gambar atau satu video, tidak keduanya"
  },
  atproto_image_bytes: {
    en: "a Bluesky image is at most {max} bytes; this one has {size}",
    id: "gambar Bluesky berukuran paling besar {max} byte; gambar ini {size} byte"
  },
  atproto_video_bytes: {
    en: "a Bluesky video is at most {max} bytes; this one has {size}",
    id: "video Bluesky berukuran paling besar {max} byte; video ini {size} byte"
  },
  atproto_video_format: { en: "Bluesky takes MP4 videos, not {value}", id: "Bluesky menerima video MP4, bukan {value}" },
  atproto_image_format: {
    en: "Bluesky takes JPEG, PNG, WebP or GIF images, not {value}",
    id: "Bluesky menerima gambar JPEG, PNG, WebP, atau GIF, bukan {value}"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
