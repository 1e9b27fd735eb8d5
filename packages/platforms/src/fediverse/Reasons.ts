/**
 * Mastodon's own refusal reasons, in English and Indonesian: the `{detail}` of the errors its
 * rules and its publisher give (the plugin's `reasons`; the shared ones are in `ErrorDetail`).
 *
 * @since 0.5.0
 */
import { ErrorDetail } from "@postwire/domain"

/** The reasons, by name. */
export const catalogue = ErrorDetail.catalogue({
  fediverse_media_max: {
    en: "a Mastodon post takes at most {max} attachments",
    id: "unggahan Mastodon berisi paling banyak {max} lampiran"
  },
  fediverse_images_and_video: {
    en: "a Mastodon post takes up to 4 images, or one video alone, never both",
    id: "unggahan Mastodon berisi sampai 4 gambar, atau satu video saja, tidak keduanya"
  },
  fediverse_media_format: {
    en: "the Mastodon server does not take {value} files",
    id: "server Mastodon tidak menerima berkas {value}"
  },
  fediverse_media_size: {
    en: "the Mastodon server takes files of at most {max} MB of this kind; this one is {size} MB",
    id: "server Mastodon menerima berkas jenis ini paling besar {max} MB; berkas ini {size} MB"
  },
  fediverse_media_pixels: {
    en: "the Mastodon server takes at most {max} pixels (width × height) of this kind; this one has {size}",
    id: "server Mastodon menerima paling banyak {max} piksel (lebar × tinggi) untuk jenis ini; berkas ini {size}"
  },
  fediverse_server_not_public: {
    en: "must be a Mastodon server on the public internet: {range}",
    id: "harus berupa server Mastodon di internet publik: {range}"
  },
  fediverse_alt_count: {
    en: "gives {count} descriptions where the post has {max} media items: at most one per item",
    id: "memberi {count} deskripsi padahal unggahan ini berisi {max} media: paling banyak satu per media"
  },
  fediverse_alt_too_long: {
    en: "the Mastodon server takes media descriptions of at most {max} characters; this one has {size}",
    id: "server Mastodon menerima deskripsi media paling panjang {max} karakter; deskripsi ini {size} karakter"
  },
  fediverse_server_said: { en: "the Mastodon server said: {value}", id: "server Mastodon menjawab: {value}" },
  fediverse_server_address: {
    en: "must be the address of a Mastodon server, e.g. mastodon.social or https://mastodon.social",
    id: "harus berupa alamat server Mastodon, misalnya mastodon.social atau https://mastodon.social"
  }
})

/** A reason in both languages, its placeholders filled. */
export const reason = catalogue.reason
