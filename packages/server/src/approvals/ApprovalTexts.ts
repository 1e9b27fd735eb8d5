/**
 * Every text of the approval page, in English and Indonesian, and the page's language. Error
 * texts come from the catalog, not from here.
 *
 * @since 0.1.0
 */
import { type Locale, localeFromAcceptLanguage, type Post } from "@postwire/domain"

type PrivacyLevel = Post.Consent["privacy_level"]

/** Every text of the approval page, per language. */
export const texts = {
  en: {
    languageName: "English",
    languages: "Language",
    title: "Review a post",
    heading: "Review this post before it is published",
    intro: "Check the caption, the media and where it goes, then approve or reject it.",
    caption: "Caption",
    media: "Media",
    image: (i: number, n: number) => `Image ${i} of ${n}`,
    video: (i: number, n: number) => `Video ${i} of ${n}`,
    noVideo: "Your browser cannot play this video.",
    destinations: "Where it will be published",
    schedule: "When",
    soon: "As soon as it is approved",
    expires: (date: string) => `This link works until ${date}.`,
    status: {
      awaiting_approval: "Waiting for approval",
      scheduled: "Scheduled",
      queued: "Queued to publish",
      publishing: "Publishing",
      published: "Published",
      failed: "Failed",
      cancelled: "Cancelled",
      rejected: "Rejected"
    },
    consentHeading: (handle: string) => `TikTok settings for ${handle}`,
    postingAs: "Posting to the TikTok account of",
    privacy: "Who can see this video",
    choose: "Choose…",
    privacyLevels: {
      PUBLIC_TO_EVERYONE: "Everyone",
      MUTUAL_FOLLOW_FRIENDS: "Friends",
      FOLLOWER_OF_CREATOR: "Followers",
      SELF_ONLY: "Only me"
    } satisfies Record<PrivacyLevel, string>,
    brandedNotPrivate: "Branded content cannot be private.",
    allowUsers: "Allow viewers to",
    comment: "Comment",
    duet: "Duet",
    stitch: "Stitch",
    offByCreator: "Turned off in this creator's TikTok settings.",
    disclose: "Disclose video content",
    discloseHint: "Turn on if this video promotes goods or services in exchange for something of value.",
    promotes: "What the video promotes",
    yourBrand: "Your brand",
    yourBrandHint: "You are promoting yourself or your own business. The video will be labelled “Promotional content”.",
    branded: "Branded content",
    brandedHint:
      "You are promoting another brand or a third party. The video will be labelled “Paid partnership”.",
    cannotPost: "TikTok cannot take this video now:",
    declarationMusic: ["By posting, you agree to TikTok's ", "music", "."],
    declarationBranded: ["By posting, you agree to TikTok's ", "branded", " and ", "music", "."],
    musicPolicy: "Music Usage Confirmation",
    brandedPolicy: "Branded Content Policy",
    processing: "After approval, TikTok can take a few minutes to process the video before it appears.",
    reason: "Reason (optional)",
    reasonHint: "Tell the team why, especially if you reject the post.",
    approve: "Approve",
    reject: "Reject",
    fix: "Please fix the following:",
    choosePrivacy: (handle: string) => `Choose who can see the video on ${handle}.`,
    chooseBrand: (handle: string) =>
      `For ${handle}, choose “Your brand”, “Branded content” or both, or turn off “Disclose video content”.`,
    brandedPrivate: (handle: string) => `Branded content cannot be private: choose another audience for ${handle}.`,
    declarationChanged: "The declaration above the buttons changed with your choices: read it, then approve again.",
    approvedTitle: "Post approved",
    approvedAt: (when: string) => `Thank you. The post will be published on ${when}.`,
    approvedNow: "Thank you. The post is being published now; this can take a few minutes.",
    rejectedTitle: "Post rejected",
    rejectedBody: "Thank you. The post will not be published.",
    decidedTitle: "This link has been used",
    decidedApproved: (date: string) => `The post was approved on ${date}.`,
    decidedRejected: (date: string) => `The post was rejected on ${date}.`,
    expiredTitle: "This link has expired",
    expiredBody: (date: string) => `It stopped working on ${date}. Ask the person who sent it for a new link.`,
    unknownTitle: "This link does not work",
    unknownBody:
      "Check that you opened the whole address. A link also stops working when the post is changed and a new link is sent: ask the person who sent it.",
    closedTitle: "Nothing to decide",
    closedBody: "This post no longer waits for approval: it was cancelled.",
    staleTitle: "This form has expired",
    staleBody: "Nothing was decided. Open the link again and decide once more.",
    reload: "Open the page again",
    misconfiguredTitle: "This link is not set up correctly",
    failedTitle: "The decision was not saved",
    backToPost: "Back to the post"
  },
  id: {
    languageName: "Bahasa Indonesia",
    languages: "Bahasa",
    title: "Tinjau unggahan",
    heading: "Tinjau unggahan ini sebelum diterbitkan",
    intro: "Periksa keterangan, media, dan tujuannya, lalu setujui atau tolak.",
    caption: "Keterangan",
    media: "Media",
    image: (i: number, n: number) => `Gambar ${i} dari ${n}`,
    video: (i: number, n: number) => `Video ${i} dari ${n}`,
    noVideo: "Browser Anda tidak dapat memutar video ini.",
    destinations: "Tempat unggahan diterbitkan",
    schedule: "Waktu",
    soon: "Segera setelah disetujui",
    expires: (date: string) => `Tautan ini berlaku sampai ${date}.`,
    status: {
      awaiting_approval: "Menunggu persetujuan",
      scheduled: "Terjadwal",
      queued: "Dalam antrean terbit",
      publishing: "Sedang diterbitkan",
      published: "Diterbitkan",
      failed: "Gagal",
      cancelled: "Dibatalkan",
      rejected: "Ditolak"
    },
    consentHeading: (handle: string) => `Pengaturan TikTok untuk ${handle}`,
    postingAs: "Diunggah ke akun TikTok milik",
    privacy: "Siapa yang dapat melihat video ini",
    choose: "Pilih…",
    privacyLevels: {
      PUBLIC_TO_EVERYONE: "Semua orang",
      MUTUAL_FOLLOW_FRIENDS: "Teman",
      FOLLOWER_OF_CREATOR: "Pengikut",
      SELF_ONLY: "Hanya saya"
    } satisfies Record<PrivacyLevel, string>,
    brandedNotPrivate: "Konten bermerek tidak dapat dibuat privat.",
    allowUsers: "Izinkan penonton untuk",
    comment: "Berkomentar",
    duet: "Duet",
    stitch: "Stitch",
    offByCreator: "Dinonaktifkan di pengaturan TikTok kreator ini.",
    disclose: "Ungkapkan konten video",
    discloseHint: "Aktifkan jika video ini mempromosikan barang atau jasa dengan imbalan sesuatu yang bernilai.",
    promotes: "Yang dipromosikan video ini",
    yourBrand: "Merek Anda",
    yourBrandHint: "Anda mempromosikan diri sendiri atau bisnis Anda. Video akan diberi label “Konten promosi”.",
    branded: "Konten bermerek",
    brandedHint: "Anda mempromosikan merek lain atau pihak ketiga. Video akan diberi label “Kemitraan berbayar”.",
    cannotPost: "TikTok tidak dapat menerima video ini sekarang:",
    declarationMusic: ["Dengan mengunggah, Anda menyetujui ", "music", " TikTok."],
    declarationBranded: ["Dengan mengunggah, Anda menyetujui ", "branded", " dan ", "music", " TikTok."],
    musicPolicy: "Konfirmasi Penggunaan Musik",
    brandedPolicy: "Kebijakan Konten Bermerek",
    processing: "Setelah disetujui, TikTok dapat memerlukan beberapa menit untuk memproses video sebelum tampil.",
    reason: "Alasan (opsional)",
    reasonHint: "Beri tahu tim alasannya, terutama jika Anda menolak unggahan.",
    approve: "Setujui",
    reject: "Tolak",
    fix: "Mohon perbaiki hal berikut:",
    choosePrivacy: (handle: string) => `Pilih siapa yang dapat melihat video di ${handle}.`,
    chooseBrand: (handle: string) =>
      `Untuk ${handle}, pilih “Merek Anda”, “Konten bermerek”, atau keduanya, atau matikan “Ungkapkan konten video”.`,
    brandedPrivate: (handle: string) =>
      `Konten bermerek tidak dapat dibuat privat: pilih audiens lain untuk ${handle}.`,
    declarationChanged: "Pernyataan di atas tombol berubah sesuai pilihan Anda: bacalah, lalu setujui kembali.",
    approvedTitle: "Unggahan disetujui",
    approvedAt: (when: string) => `Terima kasih. Unggahan akan diterbitkan pada ${when}.`,
    approvedNow: "Terima kasih. Unggahan sedang diterbitkan; proses ini dapat memakan waktu beberapa menit.",
    rejectedTitle: "Unggahan ditolak",
    rejectedBody: "Terima kasih. Unggahan tidak akan diterbitkan.",
    decidedTitle: "Tautan ini sudah digunakan",
    decidedApproved: (date: string) => `Unggahan ini disetujui pada ${date}.`,
    decidedRejected: (date: string) => `Unggahan ini ditolak pada ${date}.`,
    expiredTitle: "Tautan ini sudah kedaluwarsa",
    expiredBody: (date: string) =>
      `Tautan berhenti berlaku pada ${date}. Mintalah tautan baru kepada orang yang mengirimnya.`,
    unknownTitle: "Tautan ini tidak berfungsi",
    unknownBody:
      "Pastikan Anda membuka alamat selengkapnya. Tautan juga berhenti berlaku saat unggahan diubah dan tautan baru dikirim: tanyakan kepada orang yang mengirimnya.",
    closedTitle: "Tidak ada yang perlu diputuskan",
    closedBody: "Unggahan ini tidak lagi menunggu persetujuan: unggahan sudah dibatalkan.",
    staleTitle: "Formulir ini sudah kedaluwarsa",
    staleBody: "Belum ada keputusan yang disimpan. Buka tautan lagi lalu putuskan sekali lagi.",
    reload: "Buka halaman lagi",
    misconfiguredTitle: "Tautan ini tidak diatur dengan benar",
    failedTitle: "Keputusan tidak tersimpan",
    backToPost: "Kembali ke unggahan"
  }
} as const

/** The texts of the page in one language. */
export type Texts = (typeof texts)[Locale]

/** TikTok's policies that the declaration before the approve button links to. */
export const policyLinks = {
  music: "https://www.tiktok.com/legal/page/global/music-usage-confirmation/en",
  branded: "https://www.tiktok.com/legal/page/global/bc-policy/en"
} as const

/** The page's language: `?lang=en|id` first, then `Accept-Language`. */
export const pageLocale = (lang: string | undefined, acceptLanguage: string | undefined): Locale =>
  lang === "id" || lang === "en" ? lang : localeFromAcceptLanguage(acceptLanguage)
