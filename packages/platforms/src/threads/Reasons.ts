/**
 * Threads's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  textpost_links_max: {
    en: "a post takes at most {max} links (Threads counts each unique URL); this one has {count}",
    id: "unggahan berisi paling banyak {max} tautan (Threads menghitung setiap URL yang berbeda); unggahan ini berisi {count}"
  },
  textpost_links_refused: {
    en: "Threads refused the post for more than 5 links (THREADS_API__LINK_LIMIT_EXCEEDED)",
    id: "Threads menolak unggahan karena berisi lebih dari 5 tautan (THREADS_API__LINK_LIMIT_EXCEEDED)"
  },
  textpost_image_format: {
    en: "Threads takes JPEG or PNG images, not {value}",
    id: "Threads menerima gambar JPEG atau PNG, bukan {value}"
  },
  textpost_image_aspect_ratio: {
    en: "an image's aspect ratio must be within 10:1 either way",
    id: "rasio aspek gambar paling banyak 10:1 ke arah mana pun"
  },
  textpost_video_format: {
    en: "Threads takes MP4 or MOV videos, not {value}",
    id: "Threads menerima video MP4 atau MOV, bukan {value}"
  },
  textpost_video_width: {
    en: "a video is at most {max} pixels wide; this one is {size}",
    id: "lebar video paling banyak {max} piksel; video ini {size}"
  },
  textpost_video_aspect_ratio: {
    en: "a video's aspect ratio must be between 0.01:1 and 10:1",
    id: "rasio aspek video harus antara 0,01:1 dan 10:1"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
