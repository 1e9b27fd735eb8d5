/**
 * The approval page, `/approve/{token}`: plain server-rendered HTML in English and Indonesian,
 * usable with a keyboard, a screen reader and a phone, and without JavaScript (a small inline
 * script only hides what does not apply).
 *
 * It shows the post (caption, media, destinations, schedule) and, for each shortvideo direct
 * target that needs it, the consent form TikTok's Content Sharing Guidelines require: the
 * creator's nickname, a privacy level with no default, interaction switches off by default
 * (greyed out when the creator turned them off), the commercial content disclosure, and the
 * Music Usage Confirmation (plus Branded Content Policy) declaration before the button.
 *
 * Every text of the page is here, in both languages; error texts come from the catalog.
 *
 * @since 0.1.0
 */
import type { Approvals, CreatorInfo } from "@postwire/core"
import {
  type ErrorCode,
  type Locale,
  localeFromAcceptLanguage,
  type Post,
  type PostwireError,
  platformRules,
  renderMessage,
  TargetRules
} from "@postwire/domain"

type Summary = Approvals.PageSummary
type PrivacyLevel = Post.Consent["privacy_level"]

// ---------------------------------------------------------------------------------------------
// Texts
// ---------------------------------------------------------------------------------------------

const texts = {
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

type Texts = (typeof texts)[Locale]

const policyLinks = {
  music: "https://www.tiktok.com/legal/page/global/music-usage-confirmation/en",
  branded: "https://www.tiktok.com/legal/page/global/bc-policy/en"
} as const

/** The page's language: `?lang=en|id` first, then `Accept-Language`. */
export const pageLocale = (lang: string | undefined, acceptLanguage: string | undefined): Locale =>
  lang === "id" || lang === "en" ? lang : localeFromAcceptLanguage(acceptLanguage)

// ---------------------------------------------------------------------------------------------
// The consent form: field names, values and their checks
// ---------------------------------------------------------------------------------------------

/** The form field names of one target's consent. */
const fieldsOf = (targetId: string) => ({
  privacy: `privacy_level.${targetId}`,
  comment: `allow_comment.${targetId}`,
  duet: `allow_duet.${targetId}`,
  stitch: `allow_stitch.${targetId}`,
  disclose: `disclose.${targetId}`,
  yourBrand: `brand_organic.${targetId}`,
  branded: `branded_content.${targetId}`
})

/** What the person chose in one consent form. */
export interface ConsentValues {
  readonly privacy: string
  readonly allowComment: boolean
  readonly allowDuet: boolean
  readonly allowStitch: boolean
  readonly disclose: boolean
  readonly yourBrand: boolean
  readonly branded: boolean
}

const blankValues: ConsentValues = {
  privacy: "",
  allowComment: false,
  allowDuet: false,
  allowStitch: false,
  disclose: false,
  yourBrand: false,
  branded: false
}

/** A problem with the form, shown in the summary and beside its field. */
export interface FieldProblem {
  /** The id of the field it concerns (for the summary's link and `aria-describedby`). */
  readonly fieldId: string
  readonly message: string
}

/** What the form shows: the choices made so far and what is wrong with them. */
export interface FormState {
  readonly csrf: string
  readonly values: Readonly<Record<string, ConsentValues>>
  readonly reason: string
  readonly problems: ReadonlyArray<FieldProblem>
}

/** A form as sent by the browser. */
export type FormFields = Readonly<Record<string, string | undefined>>

const isPrivacyLevel = (value: string, creator: CreatorInfo): value is PrivacyLevel =>
  creator.privacyLevelOptions.includes(value)

const targetsWithForm = (summary: Summary) =>
  summary.targets.flatMap((t) =>
    t.consentForm?._tag === "Ready" ? [{ target: t.target, account: t.account, creator: t.consentForm.creator }] : []
  )

const handleOf = (t: Approvals.PageTarget | { readonly account: Approvals.PageTarget["account"] }) =>
  `@${(t.account?.handle ?? "").replace(/^@/, "")}`

/** Whether any consent form of the page has branded content chosen. */
const brandedChosen = (values: FormState["values"]) => Object.values(values).some((v) => v.disclose && v.branded)

/** Which declaration the page shows for these choices. */
const declarationFor = (values: FormState["values"]): "music" | "branded" =>
  brandedChosen(values) ? "branded" : "music"

/** What a submitted form asks for, checked as TikTok requires before anything is sent. */
export interface SubmittedForm {
  readonly decision: "approve" | "reject" | undefined
  readonly reason: string
  readonly values: Readonly<Record<string, ConsentValues>>
  /** Consent per target, when the form is complete. */
  readonly consent: Readonly<Record<string, Post.Consent>>
  readonly problems: ReadonlyArray<FieldProblem>
}

/** Reads the decision, the reason and each consent form from a submitted form. */
export const readForm = (fields: FormFields, summary: Summary, locale: Locale): SubmittedForm => {
  const t = texts[locale]
  const decision = fields.decision === "approve" || fields.decision === "reject" ? fields.decision : undefined
  const values: Record<string, ConsentValues> = {}
  const consent: Record<string, Post.Consent> = {}
  const problems: Array<FieldProblem> = []
  for (const { target, account, creator } of targetsWithForm(summary)) {
    const names = fieldsOf(target.id)
    const on = (name: string) => fields[name] === "on"
    const v: ConsentValues = {
      privacy: fields[names.privacy] ?? "",
      allowComment: on(names.comment) && !creator.commentDisabled,
      allowDuet: on(names.duet) && !creator.duetDisabled,
      allowStitch: on(names.stitch) && !creator.stitchDisabled,
      disclose: on(names.disclose),
      yourBrand: on(names.yourBrand),
      branded: on(names.branded)
    }
    values[target.id] = v
    if (decision !== "approve") continue
    const handle = handleOf({ account })
    const ids = idsOf(target.id)
    if (!isPrivacyLevel(v.privacy, creator)) {
      problems.push({ fieldId: ids.privacy, message: t.choosePrivacy(handle) })
      continue
    }
    if (v.disclose && !v.yourBrand && !v.branded) {
      problems.push({ fieldId: ids.yourBrand, message: t.chooseBrand(handle) })
      continue
    }
    if (TargetRules.consentRuleBreak({ privacy_level: v.privacy, branded_content: v.disclose && v.branded }) !== undefined) {
      problems.push({ fieldId: ids.privacy, message: t.brandedPrivate(handle) })
      continue
    }
    consent[target.id] = {
      privacy_level: v.privacy,
      music_usage_confirmed: true,
      disable_comment: !v.allowComment,
      disable_duet: !v.allowDuet,
      disable_stitch: !v.allowStitch,
      brand_organic: v.disclose && v.yourBrand,
      branded_content: v.disclose && v.branded
    }
  }
  // The person must have seen the declaration that matches their choices before approving.
  const withForms = Object.keys(values).length > 0
  if (decision === "approve" && withForms && problems.length === 0 && fields.declaration !== declarationFor(values)) {
    problems.push({ fieldId: "declaration", message: t.declarationChanged })
  }
  return { decision, reason: (fields.reason ?? "").slice(0, 1000), values, consent, problems }
}

/** A failed decision's error, placed beside the field it concerns when there is one. */
export const problemOfError = (error: PostwireError, locale: Locale): FieldProblem => ({
  fieldId: error.targetId === undefined ? "decision" : idsOf(error.targetId).privacy,
  message: renderMessage(error.code, locale, { ...error.details, field: error.field })
})

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/** Where a page lives and what it carries along. */
export interface PageContext {
  readonly locale: Locale
  /** `/approve/{token}`. */
  readonly path: string
  /** The checked `redirect_url` of the link, carried through the form. */
  readonly redirectUrl: string | undefined
  /** The nonce of this response's Content-Security-Policy. */
  readonly nonce: string
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const attr = escapeHtml

const idsOf = (targetId: string) => ({
  privacy: `privacy-${targetId}`,
  comment: `comment-${targetId}`,
  duet: `duet-${targetId}`,
  stitch: `stitch-${targetId}`,
  disclose: `disclose-${targetId}`,
  yourBrand: `brand-organic-${targetId}`,
  branded: `branded-${targetId}`,
  brandOptions: `brands-${targetId}`
})

const formatDate = (at: number, locale: Locale): string =>
  `${new Intl.DateTimeFormat(locale === "id" ? "id-ID" : "en-GB", {
    dateStyle: "long",
    timeStyle: "short",
    timeZone: "UTC"
  }).format(at)} UTC`

const time = (at: number, locale: Locale) =>
  `<time datetime="${new Date(at).toISOString()}">${escapeHtml(formatDate(at, locale))}</time>`

/** A link to this page in `locale`, keeping `redirect_url`. */
const pageHref = (ctx: PageContext, locale: Locale, suffix = "") => {
  const query = new URLSearchParams({ lang: locale })
  if (ctx.redirectUrl !== undefined) query.set("redirect_url", ctx.redirectUrl)
  return `${ctx.path}${suffix}?${query.toString()}`
}

export const styles = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --accent: #0b57d0;
  --ok: #0b6b3a; --bad: #a4161a; --bg: #ffffff; --soft: #f4f5f7; }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; justify-content: space-between; align-items: center;
  padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; }
.top ul { display: flex; gap: .75rem; list-style: none; margin: 0; padding: 0; }
.top a[aria-current] { color: var(--ink); font-weight: 700; text-decoration: none; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 1rem 0 .5rem; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.lead, .muted { color: var(--muted); }
.caption { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: .75rem 1rem; border-radius: 6px; margin: 0; }
.media { list-style: none; padding: 0; margin: 0; display: grid; gap: .75rem; }
.media img, .media video { display: block; max-width: 100%; max-height: 70vh; border-radius: 6px; background: #000; }
.targets { list-style: none; padding: 0; margin: 0; }
.targets li { display: flex; flex-wrap: wrap; gap: .25rem .75rem; padding: .5rem 0; border-bottom: 1px solid var(--line); }
.platform { font-weight: 600; }
.status { margin-left: auto; color: var(--muted); }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem 1rem; margin: 1.25rem 0; }
legend { font-weight: 700; padding: 0 .25rem; }
fieldset fieldset { margin: .75rem 0 0; }
fieldset fieldset legend { font-weight: 600; }
.field { margin: .9rem 0; }
label { font-weight: 600; }
select, textarea { display: block; width: 100%; margin-top: .3rem; font: inherit; color: var(--ink); background: var(--bg);
  padding: .6rem; border: 2px solid #6b6b6b; border-radius: 6px; }
textarea { min-height: 5rem; }
.check { display: flex; gap: .6rem; align-items: flex-start; margin: .6rem 0; }
.check input { width: 1.35rem; height: 1.35rem; margin: .15rem 0 0; flex: none; accent-color: var(--accent); }
.check label { font-weight: 500; }
.check.off label, .check.off .hint { color: #5f5f5f; }
.hint { display: block; font-size: .92rem; color: var(--muted); font-weight: 400; }
.creator { margin: .25rem 0 .5rem; }
.problem-text { color: var(--bad); font-weight: 600; margin: .25rem 0 0; }
[aria-invalid="true"] { border-color: var(--bad); }
.summary { border: 3px solid var(--bad); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
.summary h2 { margin-top: 0; color: var(--bad); }
.notice { border-left: 4px solid var(--bad); background: #fdf1f1; padding: .6rem .9rem; border-radius: 4px; }
.declaration { background: var(--soft); padding: .75rem 1rem; border-radius: 6px; }
.declaration p { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1rem; }
button { font: inherit; font-weight: 700; padding: .75rem 1.5rem; border-radius: 6px; border: 2px solid transparent; cursor: pointer; min-width: 8rem; }
button.approve { background: var(--ok); color: #fff; }
button.reject { background: #fff; color: var(--bad); border-color: var(--bad); }
button:disabled { background: #d9d9d9; color: #4a4a4a; cursor: not-allowed; }
.result { border-left: 6px solid var(--ok); padding: .25rem 1rem; }
.result.rejected, .result.problem { border-left-color: var(--bad); }
footer { text-align: center; color: var(--muted); font-size: .85rem; padding: 1rem; }
[hidden] { display: none !important; }
`

/** Keeps the consent forms honest while the person chooses; the server checks everything again. */
const script = `
(function () {
  var forms = document.querySelectorAll("[data-consent]");
  var declaration = document.querySelector("input[name=declaration]");
  function update() {
    var anyBranded = false;
    forms.forEach(function (form) {
      var disclose = form.querySelector("[data-disclose]");
      var options = form.querySelector("[data-brands]");
      var branded = form.querySelector("[data-branded]");
      var privacy = form.querySelector("select");
      var selfOnly = privacy && privacy.querySelector("option[value=SELF_ONLY]");
      options.hidden = !disclose.checked;
      var isBranded = disclose.checked && branded.checked;
      anyBranded = anyBranded || isBranded;
      if (selfOnly) {
        selfOnly.disabled = isBranded;
        if (isBranded && privacy.value === "SELF_ONLY") privacy.value = "";
      }
      form.querySelector("[data-private-note]").hidden = !(isBranded && selfOnly);
    });
    document.querySelectorAll("[data-declaration]").forEach(function (p) {
      p.hidden = p.getAttribute("data-declaration") !== (anyBranded ? "branded" : "music");
    });
    if (declaration) declaration.value = anyBranded ? "branded" : "music";
  }
  document.addEventListener("change", update);
  update();
  var summary = document.getElementById("problems");
  if (summary) summary.focus();
})();
`

/** A whole document. */
const layout = (ctx: PageContext, title: string, body: string, withScript = false): string => {
  const t = texts[ctx.locale]
  const switcher = (["en", "id"] as const)
    .map(
      (l) =>
        `<li><a href="${attr(pageHref(ctx, l))}" hreflang="${l}" lang="${l}"${l === ctx.locale ? ' aria-current="true"' : ""}>${escapeHtml(texts[l].languageName)}</a></li>`
    )
    .join("")
  return `<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} · Postwire</title>
<style nonce="${attr(ctx.nonce)}">${styles}</style>
</head>
<body>
<header class="top"><span class="brand">Postwire</span>
<nav aria-label="${attr(t.languages)}"><ul>${switcher}</ul></nav></header>
<main id="main">
${body}
</main>
<footer>Postwire</footer>
${withScript ? `<script nonce="${attr(ctx.nonce)}">${script}</script>` : ""}
</body>
</html>`
}

const captionSection = (t: Texts, summary: Summary) =>
  `<section aria-labelledby="caption-heading"><h2 id="caption-heading">${escapeHtml(t.caption)}</h2>
<p class="caption">${escapeHtml(summary.post.caption)}</p></section>`

const mediaSection = (ctx: PageContext, t: Texts, summary: Summary) => {
  const n = summary.media.length
  if (n === 0) return ""
  const items = summary.media
    .map((m, i) => {
      const src = attr(`${ctx.path}/media/${m.id}`)
      return m.kind === "image"
        ? `<li><img src="${src}" alt="${attr(t.image(i + 1, n))}"${m.width && m.height ? ` width="${m.width}" height="${m.height}"` : ""}></li>`
        : `<li><video controls preload="metadata" src="${src}" aria-label="${attr(t.video(i + 1, n))}">${escapeHtml(t.noVideo)}</video></li>`
    })
    .join("\n")
  return `<section aria-labelledby="media-heading"><h2 id="media-heading">${escapeHtml(t.media)}</h2>
<ul class="media">${items}</ul></section>`
}

const targetsSection = (t: Texts, summary: Summary) => {
  const items = summary.targets
    .map(
      (p) =>
        `<li><span class="platform">${escapeHtml(platformRules[p.target.platform].displayName)}</span>
<span class="handle">${escapeHtml(handleOf(p))}</span>
<span class="status">${escapeHtml(t.status[p.target.status])}</span></li>`
    )
    .join("\n")
  return `<section aria-labelledby="targets-heading"><h2 id="targets-heading">${escapeHtml(t.destinations)}</h2>
<ul class="targets">${items}</ul></section>`
}

const scheduleSection = (ctx: PageContext, t: Texts, summary: Summary, withExpiry: boolean) =>
  `<section aria-labelledby="schedule-heading"><h2 id="schedule-heading">${escapeHtml(t.schedule)}</h2>
<p>${summary.post.scheduledAt === null ? escapeHtml(t.soon) : time(summary.post.scheduledAt, ctx.locale)}</p>
${withExpiry ? `<p class="muted">${escapeHtml(t.expires(formatDate(summary.approval.expiresAt, ctx.locale)))}</p>` : ""}</section>`

const problemFor = (problems: ReadonlyArray<FieldProblem>, fieldId: string) => problems.find((p) => p.fieldId === fieldId)

const describedBy = (...ids: ReadonlyArray<string | undefined>) => {
  const list = ids.filter((id): id is string => id !== undefined)
  return list.length === 0 ? "" : ` aria-describedby="${attr(list.join(" "))}"`
}

const checkbox = (options: {
  readonly id: string
  readonly name: string
  readonly label: string
  readonly checked: boolean
  readonly disabled?: boolean
  readonly hint?: string
  readonly data?: string
  readonly invalid?: FieldProblem | undefined
}) => {
  const hintId = options.hint === undefined ? undefined : `${options.id}-hint`
  const problemId = options.invalid === undefined ? undefined : `${options.id}-problem`
  return `<div class="check${options.disabled ? " off" : ""}">
<input type="checkbox" role="switch" id="${attr(options.id)}" name="${attr(options.name)}"${options.checked ? " checked" : ""}${options.disabled ? " disabled" : ""}${options.data ? ` ${options.data}` : ""}${options.invalid ? ' aria-invalid="true"' : ""}${describedBy(hintId, problemId)}>
<label for="${attr(options.id)}">${escapeHtml(options.label)}${hintId ? `<span class="hint" id="${attr(hintId)}">${escapeHtml(options.hint!)}</span>` : ""}${problemId ? `<span class="problem-text" id="${attr(problemId)}">${escapeHtml(options.invalid!.message)}</span>` : ""}</label>
</div>`
}

const consentFieldset = (t: Texts, target: Approvals.PageTarget, creator: CreatorInfo, form: FormState) => {
  const id = target.target.id
  const names = fieldsOf(id)
  const ids = idsOf(id)
  const v = form.values[id] ?? blankValues
  const handle = handleOf(target)
  const privacyProblem = problemFor(form.problems, ids.privacy)
  const brandProblem = problemFor(form.problems, ids.yourBrand)
  const isBranded = v.disclose && v.branded
  const levels = creator.privacyLevelOptions
    .filter((level): level is PrivacyLevel => level in t.privacyLevels)
    .map(
      (level) =>
        `<option value="${level}"${v.privacy === level ? " selected" : ""}${level === "SELF_ONLY" && isBranded ? " disabled" : ""}>${escapeHtml(t.privacyLevels[level])}</option>`
    )
    .join("")
  const noteId = `${ids.privacy}-note`
  const problemId = `${ids.privacy}-problem`
  return `<fieldset data-consent>
<legend>${escapeHtml(t.consentHeading(handle))}</legend>
<p class="creator">${escapeHtml(t.postingAs)} <strong>${escapeHtml(creator.nickname)}</strong></p>
<div class="field">
<label for="${attr(ids.privacy)}">${escapeHtml(t.privacy)}</label>
<select id="${attr(ids.privacy)}" name="${attr(names.privacy)}" required${privacyProblem ? ' aria-invalid="true"' : ""}${describedBy(privacyProblem ? problemId : undefined, noteId)}>
<option value=""${v.privacy === "" ? " selected" : ""}>${escapeHtml(t.choose)}</option>${levels}
</select>
<p class="hint" id="${attr(noteId)}" data-private-note${isBranded && creator.privacyLevelOptions.includes("SELF_ONLY") ? "" : " hidden"}>${escapeHtml(t.brandedNotPrivate)}</p>
${privacyProblem ? `<p class="problem-text" id="${attr(problemId)}">${escapeHtml(privacyProblem.message)}</p>` : ""}
</div>
<fieldset>
<legend>${escapeHtml(t.allowUsers)}</legend>
${checkbox({ id: ids.comment, name: names.comment, label: t.comment, checked: v.allowComment && !creator.commentDisabled, disabled: creator.commentDisabled, ...(creator.commentDisabled ? { hint: t.offByCreator } : {}) })}
${checkbox({ id: ids.duet, name: names.duet, label: t.duet, checked: v.allowDuet && !creator.duetDisabled, disabled: creator.duetDisabled, ...(creator.duetDisabled ? { hint: t.offByCreator } : {}) })}
${checkbox({ id: ids.stitch, name: names.stitch, label: t.stitch, checked: v.allowStitch && !creator.stitchDisabled, disabled: creator.stitchDisabled, ...(creator.stitchDisabled ? { hint: t.offByCreator } : {}) })}
</fieldset>
${checkbox({ id: ids.disclose, name: names.disclose, label: t.disclose, checked: v.disclose, hint: t.discloseHint, data: "data-disclose" })}
<fieldset id="${attr(ids.brandOptions)}" data-brands>
<legend>${escapeHtml(t.promotes)}</legend>
${checkbox({ id: ids.yourBrand, name: names.yourBrand, label: t.yourBrand, checked: v.yourBrand, hint: t.yourBrandHint, invalid: brandProblem })}
${checkbox({ id: ids.branded, name: names.branded, label: t.branded, checked: v.branded, hint: t.brandedHint, data: "data-branded" })}
</fieldset>
</fieldset>`
}

const unavailableNotice = (ctx: PageContext, t: Texts, target: Approvals.PageTarget, error: PostwireError) =>
  `<fieldset>
<legend>${escapeHtml(t.consentHeading(handleOf(target)))}</legend>
<p class="notice" role="status">${escapeHtml(t.cannotPost)} ${escapeHtml(renderMessage(error.code, ctx.locale, { ...error.details, field: error.field }))}</p>
</fieldset>`

const declarationBlock = (t: Texts, shown: "music" | "branded") => {
  const link = (href: string, text: string) => `<a href="${href}" rel="noopener noreferrer" target="_blank">${escapeHtml(text)}</a>`
  const links: Record<string, string> = {
    music: link(policyLinks.music, t.musicPolicy),
    branded: link(policyLinks.branded, t.brandedPolicy)
  }
  // A declaration is text with the names of TikTok's policies, which become links.
  const render = (parts: ReadonlyArray<string>) => parts.map((part) => links[part] ?? escapeHtml(part)).join("")
  return `<div id="declaration" class="declaration">
<p data-declaration="music"${shown === "music" ? "" : " hidden"}>${render(t.declarationMusic)}</p>
<p data-declaration="branded"${shown === "branded" ? "" : " hidden"}>${render(t.declarationBranded)}</p>
</div>`
}

/** The page of a pending link: the post and the decision form. */
export const renderPending = (ctx: PageContext, summary: Summary, form: FormState): string => {
  const t = texts[ctx.locale]
  const consentTargets = summary.targets.filter((p) => p.consentForm !== undefined)
  const blocked = consentTargets.some((p) => p.consentForm?._tag === "Unavailable")
  const consentBlocks = consentTargets
    .map((p) =>
      p.consentForm?._tag === "Ready"
        ? consentFieldset(t, p, p.consentForm.creator, form)
        : p.consentForm?._tag === "Unavailable"
          ? unavailableNotice(ctx, t, p, p.consentForm.error)
          : ""
    )
    .join("\n")
  const hasConsent = consentTargets.some((p) => p.consentForm?._tag === "Ready")
  const declaration = declarationFor(form.values)
  const summaryBlock =
    form.problems.length === 0
      ? ""
      : `<div class="summary" id="problems" tabindex="-1" role="alert" aria-labelledby="problems-heading">
<h2 id="problems-heading">${escapeHtml(t.fix)}</h2>
<ul>${form.problems.map((p) => `<li><a href="#${attr(p.fieldId)}">${escapeHtml(p.message)}</a></li>`).join("")}</ul>
</div>`
  const hidden = [
    ["csrf", form.csrf],
    ["lang", ctx.locale],
    ...(ctx.redirectUrl === undefined ? [] : [["redirect_url", ctx.redirectUrl]]),
    ...(hasConsent ? [["declaration", declaration]] : [])
  ]
    .map(([name, value]) => `<input type="hidden" name="${attr(name!)}" value="${attr(value!)}">`)
    .join("\n")
  const body = `<h1>${escapeHtml(t.heading)}</h1>
<p class="lead">${escapeHtml(t.intro)}</p>
${summaryBlock}
${captionSection(t, summary)}
${mediaSection(ctx, t, summary)}
${targetsSection(t, summary)}
${scheduleSection(ctx, t, summary, true)}
<form method="post" action="${attr(ctx.path)}" novalidate>
${hidden}
${consentBlocks}
<div class="field">
<label for="reason">${escapeHtml(t.reason)}</label>
<textarea id="reason" name="reason" maxlength="1000" aria-describedby="reason-hint">${escapeHtml(form.reason)}</textarea>
<span class="hint" id="reason-hint">${escapeHtml(t.reasonHint)}</span>
</div>
${hasConsent ? `${declarationBlock(t, declaration)}\n<p class="muted">${escapeHtml(t.processing)}</p>` : ""}
<div class="actions" id="decision">
<button type="submit" class="approve" name="decision" value="approve"${blocked ? " disabled" : ""}${hasConsent ? ' aria-describedby="declaration"' : ""}>${escapeHtml(t.approve)}</button>
<button type="submit" class="reject" name="decision" value="reject">${escapeHtml(t.reject)}</button>
</div>
</form>`
  return layout(ctx, t.title, body, hasConsent || form.problems.length > 0)
}

/** What the person sees after deciding. */
export const renderResult = (ctx: PageContext, summary: Summary): string => {
  const t = texts[ctx.locale]
  const approved = summary.approval.status === "approved"
  const scheduledAt = summary.post.scheduledAt
  const message = approved
    ? scheduledAt !== null && summary.targets.some((p) => p.target.status === "scheduled")
      ? t.approvedAt(formatDate(scheduledAt, ctx.locale))
      : t.approvedNow
    : t.rejectedBody
  const body = `<div class="result${approved ? "" : " rejected"}" role="status">
<h1>${escapeHtml(approved ? t.approvedTitle : t.rejectedTitle)}</h1>
<p>${escapeHtml(message)}</p>
</div>
${captionSection(t, summary)}
${targetsSection(t, summary)}`
  return layout(ctx, approved ? t.approvedTitle : t.rejectedTitle, body)
}

/** A link opened again after its decision. */
export const renderDecided = (ctx: PageContext, summary: Summary): string => {
  const t = texts[ctx.locale]
  const decidedAt = formatDate(summary.approval.decidedAt ?? summary.approval.createdAt, ctx.locale)
  const approved = summary.approval.status === "approved"
  const body = `<div class="result${approved ? "" : " rejected"}">
<h1>${escapeHtml(t.decidedTitle)}</h1>
<p>${escapeHtml(catalogText("already_decided", ctx.locale))}
${escapeHtml(approved ? t.decidedApproved(decidedAt) : t.decidedRejected(decidedAt))}</p>
</div>
${captionSection(t, summary)}
${targetsSection(t, summary)}`
  return layout(ctx, t.decidedTitle, body)
}

/** A link past its `expires_at`. */
export const renderExpired = (ctx: PageContext, expiresAt: number): string => {
  const t = texts[ctx.locale]
  const body = `<div class="result problem">
<h1>${escapeHtml(t.expiredTitle)}</h1>
<p>${escapeHtml(catalogText("approval_expired", ctx.locale))} ${escapeHtml(t.expiredBody(formatDate(expiresAt, ctx.locale)))}</p>
</div>`
  return layout(ctx, t.expiredTitle, body)
}

/** A token that names no approval (mistyped, or replaced by a newer link). */
export const renderUnknown = (ctx: PageContext): string => {
  const t = texts[ctx.locale]
  return layout(
    ctx,
    t.unknownTitle,
    `<div class="result problem"><h1>${escapeHtml(t.unknownTitle)}</h1><p>${escapeHtml(t.unknownBody)}</p></div>`
  )
}

/** A link whose post was cancelled before anyone decided. */
export const renderClosed = (ctx: PageContext, summary: Summary): string => {
  const t = texts[ctx.locale]
  const body = `<div class="result problem"><h1>${escapeHtml(t.closedTitle)}</h1><p>${escapeHtml(t.closedBody)}</p></div>
${targetsSection(t, summary)}`
  return layout(ctx, t.closedTitle, body)
}

/** A form sent without its anti-forgery token (or from another site). */
export const renderStaleForm = (ctx: PageContext): string => {
  const t = texts[ctx.locale]
  const body = `<div class="result problem"><h1>${escapeHtml(t.staleTitle)}</h1><p>${escapeHtml(t.staleBody)}</p>
<p><a href="${attr(pageHref(ctx, ctx.locale))}">${escapeHtml(t.reload)}</a></p></div>`
  return layout(ctx, t.staleTitle, body)
}

/** A link whose `redirect_url` the workspace does not allow. */
export const renderMisconfigured = (ctx: PageContext): string => {
  const t = texts[ctx.locale]
  const body = `<div class="result problem"><h1>${escapeHtml(t.misconfiguredTitle)}</h1>
<p>${escapeHtml(catalogText("invalid_redirect_url", ctx.locale))}</p></div>`
  return layout(ctx, t.misconfiguredTitle, body)
}

/** A decision the service could not save for a reason the form cannot fix (the platform is down). */
export const renderFailed = (ctx: PageContext, error: PostwireError): string => {
  const t = texts[ctx.locale]
  const body = `<div class="result problem"><h1>${escapeHtml(t.failedTitle)}</h1>
<p>${escapeHtml(renderMessage(error.code, ctx.locale, { ...error.details, field: error.field }))}</p>
<p><a href="${attr(pageHref(ctx, ctx.locale))}">${escapeHtml(t.backToPost)}</a></p></div>`
  return layout(ctx, t.failedTitle, body)
}

const catalogText = (code: ErrorCode, locale: Locale) => renderMessage(code, locale)

/** The form as first shown: nothing chosen, every switch off. */
export const emptyForm = (csrf: string): FormState => ({ csrf, values: {}, reason: "", problems: [] })
