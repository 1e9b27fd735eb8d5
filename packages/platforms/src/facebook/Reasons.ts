/**
 * Facebook Pages's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  page_video_or_images: {
    en: "a page post takes one video, or up to ten images",
    id: "unggahan halaman berisi satu video, atau paling banyak sepuluh gambar"
  },
  page_images_max: { en: "a page post takes at most {max} images", id: "unggahan halaman berisi paling banyak {max} gambar" },
  reel_min_duration: { en: "a reel lasts at least {min} seconds", id: "reel berdurasi paling singkat {min} detik" },
  page_photo_format: {
    en: "a Facebook Page photo must be JPEG, PNG, GIF, BMP or TIFF, not {value}",
    id: "foto Halaman Facebook harus berformat JPEG, PNG, GIF, BMP, atau TIFF, bukan {value}"
  },
  page_photo_too_large: {
    en: "a Facebook Page photo is at most {max} MB",
    id: "foto Halaman Facebook berukuran paling besar {max} MB"
  },
  page_video_too_large: {
    en: "a Facebook Page video is at most {max} MB when Meta fetches it by address",
    id: "video Halaman Facebook berukuran paling besar {max} MB bila Meta mengambilnya dari alamatnya"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
