/**
 * The words of the Facebook Page picker (the connect page's chooser: one Facebook consent may
 * connect several Pages, each an account), in English and Indonesian.
 *
 * @since 0.5.0
 */
import type { ChooserWords } from "@postwire/core"

/** The Page picker's words. */
export const chooser: { readonly en: ChooserWords; readonly id: ChooserWords } = {
  en: {
    hint: "You will choose which of your Facebook Pages to connect.",
    title: "Choose the Pages to connect",
    intro: "Each Page you choose becomes an account Postwire can publish to.",
    button: "Connect the chosen Pages",
    atLeastOne: "Choose at least one Page.",
    sandboxHandle: (n) => `Page ${n} handle`
  },
  id: {
    hint: "Anda akan memilih Halaman Facebook mana yang dihubungkan.",
    title: "Pilih Halaman yang akan dihubungkan",
    intro: "Setiap Halaman yang Anda pilih menjadi akun tempat Postwire dapat menerbitkan unggahan.",
    button: "Hubungkan Halaman yang dipilih",
    atLeastOne: "Pilih paling sedikit satu Halaman.",
    sandboxHandle: (n) => `Nama pengguna Halaman ${n}`
  }
}
