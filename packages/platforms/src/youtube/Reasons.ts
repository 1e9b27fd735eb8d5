/**
 * YouTube's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  youtube_one_video: {
    en: "a YouTube upload takes exactly one video and no images",
    id: "unggahan YouTube berisi tepat satu video dan tanpa gambar"
  },
  youtube_video_format: {
    en: "YouTube takes video files only (video/*); this one is {value}",
    id: "YouTube hanya menerima berkas video (video/*); berkas ini {value}"
  },
  youtube_video_bytes: {
    en: "YouTube takes videos of at most {limit} GB; this one is {size} GB",
    id: "YouTube menerima video paling besar {limit} GB; video ini {size} GB"
  },
  youtube_angle_brackets: {
    en: "a YouTube title or description must not contain < or >",
    id: "judul atau deskripsi YouTube tidak boleh mengandung < atau >"
  },
  youtube_description_bytes: {
    en: "a YouTube description takes at most {max} bytes of UTF-8; this one has {count}",
    id: "deskripsi YouTube berisi paling banyak {max} byte UTF-8; deskripsi ini berisi {count}"
  },
  youtube_title_length: {
    en: "a YouTube title takes 1 to {max} characters; this one has {count}",
    id: "judul YouTube berisi 1 sampai {max} karakter; judul ini berisi {count}"
  },
  youtube_title_missing: {
    en: "a YouTube upload needs a title: give video.title or a caption whose first line is the title",
    id: "unggahan YouTube memerlukan judul: isi video.title atau caption yang baris pertamanya menjadi judul"
  },
  youtube_tags_length: {
    en: "YouTube takes tags of at most {max} characters in all (commas and quotes counted); these have {count}",
    id: "YouTube menerima tag paling banyak {max} karakter seluruhnya (koma dan tanda kutip dihitung); tag ini berisi {count}"
  },
  youtube_made_for_kids_required: {
    en: "video.made_for_kids is required: say whether the video is made for kids (true or false); YouTube requires it and Postwire picks no default",
    id: "video.made_for_kids wajib diisi: nyatakan apakah video ini dibuat untuk anak-anak (true atau false); YouTube mewajibkannya dan Postwire tidak memilih nilai bawaan"
  },
  youtube_project_quota: {
    en: "the YouTube API project's daily budget of {limit} units cannot pay for an upload ({cost} units; {used} used today, Pacific time)",
    id: "anggaran harian proyek API YouTube sebesar {limit} unit tidak cukup untuk satu unggahan ({cost} unit; {used} terpakai hari ini, waktu Pasifik)"
  },
  youtube_project_uploads: {
    en: "the YouTube API project's {limit} uploads a day (videos.insert) are used: {used} today, Pacific time",
    id: "jatah {limit} unggahan per hari (videos.insert) proyek API YouTube sudah terpakai: {used} hari ini, waktu Pasifik"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
