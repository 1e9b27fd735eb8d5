/**
 * Instagram's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  reel_one_video: { en: "a reel needs exactly one video", id: "reel memerlukan tepat satu video" },
  story_one_item: { en: "a story needs exactly one image or video", id: "story memerlukan tepat satu gambar atau video" },
  feed_item_count: {
    en: "a feed post takes 1 to {max} images or videos",
    id: "unggahan feed berisi 1 sampai {max} gambar atau video"
  },
  ig_hashtags_max: {
    en: "a caption takes at most {max} hashtags; this one has {count}",
    id: "caption berisi paling banyak {max} tagar; caption ini berisi {count}"
  },
  ig_mentions_max: {
    en: "a caption takes at most {max} @mentions; this one has {count}",
    id: "caption berisi paling banyak {max} @mention; caption ini berisi {count}"
  },
  ig_image_jpeg_only: {
    en: "images must be JPEG; this one is {format} (convert it to JPEG before uploading)",
    id: "gambar harus berformat JPEG; gambar ini berformat {format} (ubah ke JPEG sebelum mengunggah)"
  },
  ig_image_aspect_ratio: {
    en: "a feed or carousel image must be between 4:5 and 1.91:1; this one is {width} x {height}",
    id: "gambar feed atau carousel harus berasio antara 4:5 dan 1,91:1; gambar ini {width} x {height}"
  },
  ig_video_min_duration: { en: "a video lasts at least {min} seconds", id: "video berdurasi paling singkat {min} detik" }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
