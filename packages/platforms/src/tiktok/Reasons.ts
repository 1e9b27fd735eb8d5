/**
 * TikTok's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  shortvideo_one_video: {
    en: "a shortvideo post needs exactly one video",
    id: "unggahan shortvideo memerlukan tepat satu video"
  },
  tiktok_photo_or_video: {
    en: "a TikTok post takes one video, or 1 to {max} images, never both",
    id: "unggahan TikTok berisi satu video, atau 1 sampai {max} gambar, tidak keduanya"
  },
  tiktok_photo_count: {
    en: "a TikTok photo post takes 1 to {max} images",
    id: "unggahan foto TikTok berisi 1 sampai {max} gambar"
  },
  tiktok_image_format: {
    en: "TikTok photo posts take JPEG or WebP images only; this one is {value}",
    id: "unggahan foto TikTok hanya menerima gambar JPEG atau WebP; gambar ini {value}"
  },
  tiktok_image_bytes: {
    en: "TikTok takes images of at most {limit} MB each; this one is {size} MB",
    id: "TikTok menerima gambar paling besar {limit} MB masing-masing; gambar ini {size} MB"
  },
  tiktok_video_format: {
    en: "TikTok takes MP4, WebM or MOV videos only; this one is {value}",
    id: "TikTok hanya menerima video MP4, WebM, atau MOV; video ini {value}"
  },
  tiktok_video_codec: {
    en: "TikTok takes H.264, H.265, VP8 or VP9 video only; this one is {value}",
    id: "TikTok hanya menerima video H.264, H.265, VP8, atau VP9; video ini {value}"
  },
  tiktok_video_picture_size: {
    en: "TikTok takes videos {min} to {max} pixels wide and high; this one is {value}",
    id: "TikTok menerima video dengan lebar dan tinggi {min} sampai {max} piksel; video ini {value}"
  },
  tiktok_video_bytes: {
    en: "TikTok takes videos of at most {limit} GB; this one is {size} GB",
    id: "TikTok menerima video paling besar {limit} GB; video ini {size} GB"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
