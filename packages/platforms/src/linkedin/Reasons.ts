/**
 * LinkedIn's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  professional_video_or_images: {
    en: "a LinkedIn post takes one video, or 1 to 20 images, not both",
    id: "unggahan LinkedIn berisi satu video, atau 1 sampai 20 gambar, tidak keduanya"
  },
  professional_images_max: {
    en: "a LinkedIn post takes at most {max} images",
    id: "unggahan LinkedIn berisi paling banyak {max} gambar"
  },
  professional_image_format: {
    en: "LinkedIn takes JPG, PNG or GIF images, not {value}",
    id: "LinkedIn menerima gambar JPG, PNG, atau GIF, bukan {value}"
  },
  professional_image_pixels: {
    en: "an image has fewer than {max} pixels (width × height); this one has {size}",
    id: "gambar harus kurang dari {max} piksel (lebar × tinggi); gambar ini {size}"
  },
  professional_video_format: { en: "LinkedIn takes MP4 videos, not {value}", id: "LinkedIn menerima video MP4, bukan {value}" },
  professional_video_min_duration: {
    en: "a LinkedIn video lasts at least {min} seconds",
    id: "video LinkedIn berdurasi paling singkat {min} detik"
  },
  professional_video_size: {
    en: "a LinkedIn video is from 75 KB to 500 MB; this one is {size} bytes",
    id: "video LinkedIn berukuran 75 KB sampai 500 MB; video ini {size} byte"
  },
  professional_article_with_media: {
    en: "an article link takes one image at most, shown as its thumbnail, and no video",
    id: "tautan artikel berisi paling banyak satu gambar, yang ditampilkan sebagai gambar mininya, dan tanpa video"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
