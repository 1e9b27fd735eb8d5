/**
 * The connect pages, in English and Indonesian, with the approval page's look: the link's page
 * (who asks, for which profile, and a button to the platform), the Facebook Page picker, the
 * simulated consent page of sandbox connects, the result, and one clear page per failure.
 *
 * Every page is built with the escaping `html` template; error texts come from the catalog.
 *
 * @since 0.2.0
 */
import type { ChooserWords, Connect, ConnectFormField } from "@postwire/core"
import {
  inLocale,
  isLocalizedText,
  type Locale,
  localeFromAcceptLanguage,
  type Platform,
  type PostwireError,
  renderMessage
} from "@postwire/domain"
import { styles } from "../approvals/ApprovalStyles.ts"
import { isolated } from "../approvals/UserText.ts"
import { formatDate } from "../html/DateText.ts"
import { html, raw, render, type SafeHtml } from "../html/Html.ts"

const texts = {
  en: {
    languageName: "English",
    languages: "Language",
    connectTitle: (platform: string) => `Connect your ${platform} account`,
    asks: (workspace: string, platform: string, profile: string) =>
      `${workspace} asks you to connect a ${platform} account to the profile “${profile}”.`,
    asksReconnect: (workspace: string, platform: string, handle: string) =>
      `${workspace} asks you to connect the ${platform} account ${handle} again, so that it can keep publishing.`,
    what: "Postwire will be able to publish posts to this account for them. You can disconnect it at any time.",
    sandbox: "This is a sandbox: a simulated account is connected, nothing is posted anywhere.",
    expires: (date: string) => `This link works until ${date}.`,
    continue: (platform: string) => `Continue to ${platform}`,
    connectedTitle: "Account connected",
    connectedBody: (handles: string) => `${handles} is connected. You can close this page.`,
    connectedManyBody: (handles: string) => `${handles} are connected. You can close this page.`,
    unknownTitle: "This link does not work",
    unknownBody: "Check that you opened the whole address, or ask the person who sent it for a new link.",
    expiredTitle: "This link has expired",
    usedTitle: "This link has been used",
    stateTitle: "This connection could not be finished",
    refusedTitle: "Nothing was connected",
    failedTitle: "The account was not connected",
    tryAgain: "Open the connect link again to try once more.",
    browserTitle: "Finish in the browser you started in",
    browserBody:
      "This answer from the platform belongs to a connection started in another browser (or one that blocks cookies). Open the connect link again here and continue from there.",
    sandboxTitle: (platform: string) => `Sandbox ${platform}: allow access?`,
    sandboxIntro: (platform: string) =>
      `This simulated consent screen stands in for ${platform}. Nothing real is connected and nothing is posted.`,
    sandboxHandle: "Account handle",
    sandboxHandleHint: "Lowercase letters, digits, dots and underscores, up to 30. The same handle is the same account.",
    sandboxPageHint: "Leave empty to offer fewer.",
    allow: "Allow",
    cancel: "Cancel",
    badHandle: "Use 1 to 30 lowercase letters, digits, dots or underscores.",
    badRequestTitle: "This consent request is not valid",
    badRequestBody: (parameter: string) => `The parameter ${parameter} is missing or wrong.`,
    fixFields: "Nothing was connected yet: check what you typed.",
    notConnected: "Nothing was connected yet.",
    optional: "(optional)"
  },
  id: {
    languageName: "Bahasa Indonesia",
    languages: "Bahasa",
    connectTitle: (platform: string) => `Hubungkan akun ${platform} Anda`,
    asks: (workspace: string, platform: string, profile: string) =>
      `${workspace} meminta Anda menghubungkan akun ${platform} ke profil “${profile}”.`,
    asksReconnect: (workspace: string, platform: string, handle: string) =>
      `${workspace} meminta Anda menghubungkan kembali akun ${platform} ${handle} agar tetap dapat menerbitkan unggahan.`,
    what: "Postwire akan dapat menerbitkan unggahan ke akun ini untuk mereka. Anda dapat memutuskannya kapan saja.",
    sandbox: "Ini adalah sandbox: yang dihubungkan adalah akun simulasi, tidak ada yang diunggah ke mana pun.",
    expires: (date: string) => `Tautan ini berlaku sampai ${date}.`,
    continue: (platform: string) => `Lanjutkan ke ${platform}`,
    connectedTitle: "Akun terhubung",
    connectedBody: (handles: string) => `${handles} sudah terhubung. Anda dapat menutup halaman ini.`,
    connectedManyBody: (handles: string) => `${handles} sudah terhubung. Anda dapat menutup halaman ini.`,
    unknownTitle: "Tautan ini tidak berfungsi",
    unknownBody: "Pastikan Anda membuka alamat selengkapnya, atau mintalah tautan baru kepada orang yang mengirimnya.",
    expiredTitle: "Tautan ini sudah kedaluwarsa",
    usedTitle: "Tautan ini sudah digunakan",
    stateTitle: "Penghubungan ini tidak dapat diselesaikan",
    refusedTitle: "Tidak ada yang dihubungkan",
    failedTitle: "Akun tidak terhubung",
    tryAgain: "Buka lagi tautan penghubung untuk mencoba sekali lagi.",
    browserTitle: "Selesaikan di peramban tempat Anda memulai",
    browserBody:
      "Jawaban dari platform ini milik penghubungan yang dimulai di peramban lain (atau peramban yang memblokir cookie). Buka lagi tautan penghubung di sini dan lanjutkan dari sana.",
    sandboxTitle: (platform: string) => `${platform} sandbox: izinkan akses?`,
    sandboxIntro: (platform: string) =>
      `Layar persetujuan simulasi ini menggantikan ${platform}. Tidak ada akun nyata yang dihubungkan dan tidak ada yang diunggah.`,
    sandboxHandle: "Nama pengguna akun",
    sandboxHandleHint: "Huruf kecil, angka, titik, dan garis bawah, paling banyak 30. Nama yang sama berarti akun yang sama.",
    sandboxPageHint: "Kosongkan untuk menawarkan lebih sedikit.",
    allow: "Izinkan",
    cancel: "Batal",
    badHandle: "Gunakan 1 sampai 30 huruf kecil, angka, titik, atau garis bawah.",
    badRequestTitle: "Permintaan persetujuan ini tidak valid",
    badRequestBody: (parameter: string) => `Parameter ${parameter} tidak ada atau salah.`,
    fixFields: "Belum ada yang dihubungkan: periksa isian Anda.",
    notConnected: "Belum ada yang dihubungkan.",
    optional: "(opsional)"
  }
} as const

/** The picker's words of a platform whose plugin gives none. */
const genericChooser = (platform: string): { readonly en: ChooserWords; readonly id: ChooserWords } => ({
  en: {
    hint: `You will choose which of your ${platform} accounts to connect.`,
    title: `Choose the ${platform} accounts to connect`,
    intro: "Each account you choose becomes an account Postwire can publish to.",
    button: "Connect the chosen accounts",
    atLeastOne: "Choose at least one account.",
    sandboxHandle: (n) => `Account ${n} handle`
  },
  id: {
    hint: `Anda akan memilih akun ${platform} mana yang dihubungkan.`,
    title: `Pilih akun ${platform} yang akan dihubungkan`,
    intro: "Setiap akun yang Anda pilih menjadi akun tempat Postwire dapat menerbitkan unggahan.",
    button: "Hubungkan akun yang dipilih",
    atLeastOne: "Pilih paling sedikit satu akun.",
    sandboxHandle: (n) => `Nama pengguna akun ${n}`
  }
})

/** The picker's words in `locale`: the plugin's, or generic ones naming the platform. */
const chooserWords = (chooser: Connect.ChooserInfo, locale: Locale): ChooserWords =>
  (chooser.words ?? genericChooser(chooser.platformName))[locale]

/** The page's language: `?lang=en|id` first, then `Accept-Language`. */
export const pageLocale = (lang: string | null | undefined, acceptLanguage: string | undefined): Locale =>
  lang === "id" || lang === "en" ? lang : localeFromAcceptLanguage(acceptLanguage)

/** Where a page lives and what it needs to render. */
export interface PageContext {
  readonly locale: Locale
  /** The address of this page without its query, for the language switcher; none on pages that cannot be loaded again. */
  readonly path: string | undefined
  /** Query parameters the language switcher keeps. */
  readonly query?: Readonly<Record<string, string>> | undefined
  /** The nonce of this response's Content-Security-Policy. */
  readonly nonce: string
}

// What the approval page's stylesheet lacks: a link that looks like its buttons, and text inputs.
const extraStyles = `
a.button { display: inline-block; font-weight: 700; padding: .75rem 1.5rem; border-radius: 6px; text-decoration: none; min-width: 8rem; text-align: center; }
a.button.approve { background: var(--ok); color: #fff; }
input[type=text], input[type=password], input:not([type]) { display: block; width: 100%; margin-top: .3rem; font: inherit; padding: .6rem; border: 2px solid #6b6b6b; border-radius: 6px; }
.notice p { margin: 0; }
`

const handleOf = (handle: string) => `@${handle.replace(/^@/, "")}`

const layout = (ctx: PageContext, title: string, body: SafeHtml): string => {
  const switcher = (ctx.path === undefined ? [] : (["en", "id"] as const)).map((l) => {
    const query = new URLSearchParams({ ...ctx.query, lang: l })
    return html`<li><a href="${`${ctx.path}?${query.toString()}`}" hreflang="${l}" lang="${l}"${raw(
      l === ctx.locale ? ' aria-current="true"' : ""
    )}>${texts[l].languageName}</a></li>`
  })
  return render(html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title} · Postwire</title>
<style nonce="${ctx.nonce}">${raw(styles + extraStyles)}</style>
</head>
<body>
<header class="top"><span class="brand">Postwire</span>
${ctx.path === undefined ? "" : html`<nav aria-label="${texts[ctx.locale].languages}"><ul>${switcher}</ul></nav>`}</header>
<main id="main">
${body}
</main>
<footer>Postwire</footer>
</body>
</html>`)
}

const problem = (ctx: PageContext, title: string, ...paragraphs: ReadonlyArray<string>) =>
  layout(ctx, title, html`<div class="result problem"><h1>${title}</h1>${paragraphs.map((p) => html`<p>${p}</p>`)}</div>`)

/** The platform's connect form on the link's page: its fields, what was typed, what was wrong. */
export interface OpenForm {
  readonly fields: ReadonlyArray<ConnectFormField>
  /** Values to show again (never a password). */
  readonly values: Readonly<Record<string, string>>
  readonly error: PostwireError | undefined
  /** Where the form posts (`/connect/{token}/start`). */
  readonly action: string
}

const fieldId = (name: string) => `field-${name}`

/** The reason a field was refused, in the page's language; `undefined` when it was not. */
const fieldProblem = (error: PostwireError | undefined, name: string, locale: Locale): string | undefined => {
  const issue = (error?.issues ?? (error === undefined ? [] : [error])).find((i) => i.field === `fields.${name}`)
  if (issue === undefined) return undefined
  const detail = issue.details?.detail
  return detail !== undefined && (isLocalizedText(detail) || typeof detail === "string") ? inLocale(detail, locale) : messageOf(issue, locale)
}

const renderField = (ctx: PageContext, form: OpenForm, field: ConnectFormField): SafeHtml => {
  const id = fieldId(field.name)
  const problemText = fieldProblem(form.error, field.name, ctx.locale)
  const required = field.required !== false
  const described = [...(field.help === undefined ? [] : [`${id}-help`]), ...(problemText === undefined ? [] : [`${id}-error`])]
  // A password is never written back into the page.
  const value = field.kind === "password" ? "" : (form.values[field.name] ?? "")
  const attributes = html`${raw(field.kind === "password" ? ' type="password" autocomplete="current-password"' : ' type="text" autocomplete="off"')}${raw(
    field.kind === "url" ? ' inputmode="url" autocapitalize="off" spellcheck="false"' : ""
  )}${field.placeholder === undefined ? "" : html` placeholder="${field.placeholder}"`}${raw(required ? " required" : "")}${
    described.length === 0 ? "" : html` aria-describedby="${described.join(" ")}"`
  }${raw(problemText === undefined ? "" : ' aria-invalid="true"')} maxlength="${String(field.maxLength ?? 512)}"`
  return html`<div class="field"><label for="${id}">${field.label}${required ? "" : html` <span class="hint">${texts[ctx.locale].optional}</span>`}</label>
${field.help === undefined ? "" : html`<span class="hint" id="${id}-help">${field.help}</span>`}
<input id="${id}" name="${field.name}"${attributes} value="${value}">
${problemText === undefined ? "" : html`<p class="problem-text" id="${id}-error">${problemText}</p>`}</div>`
}

/** The error summary above a refused form: each field's problem linked to the field, or the platform's refusal. */
const renderFormProblem = (ctx: PageContext, form: OpenForm): SafeHtml => {
  const t = texts[ctx.locale]
  const error = form.error
  if (error === undefined) return html``
  const fieldIssues = form.fields.flatMap((field) => {
    const problemText = fieldProblem(error, field.name, ctx.locale)
    return problemText === undefined ? [] : [html`<li><a href="#${fieldId(field.name)}">${field.label}: ${problemText}</a></li>`]
  })
  return fieldIssues.length > 0
    ? html`<div class="summary" role="alert" data-error="${error.code}"><p>${t.fixFields}</p><ul>${fieldIssues}</ul></div>`
    : html`<div class="summary" role="alert" data-error="${error.code}"><p>${messageOf(error, ctx.locale)}</p><p>${t.notConnected}</p></div>`
}

/**
 * The link's page: who asks, for which profile, and the way to the platform: a button, or the
 * platform's connect form (`form`) posted to the start address.
 */
export const renderOpen = (
  ctx: PageContext,
  page: Extract<Connect.ConnectPage, { _tag: "Open" }>,
  startHref: string,
  form?: OpenForm | undefined
): string => {
  const t = texts[ctx.locale]
  const { link } = page
  const platform = page.platformName
  const asks =
    page.account === undefined
      ? t.asks(isolated(page.workspace.name), platform, isolated(page.profile?.name ?? link.profileId))
      : t.asksReconnect(isolated(page.workspace.name), platform, isolated(handleOf(page.account.handle)))
  const action =
    form === undefined
      ? html`<div class="actions"><a class="button approve" role="button" href="${startHref}" data-continue>${t.continue(platform)}</a></div>`
      : html`${renderFormProblem(ctx, form)}<form method="post" action="${form.action}" data-connect-form>
<input type="hidden" name="lang" value="${ctx.locale}">
${form.fields.map((field) => renderField(ctx, form, field))}
<div class="actions"><button type="submit" class="approve" data-continue>${t.continue(platform)}</button></div>
</form>`
  const body = html`<h1>${t.connectTitle(platform)}</h1>
<p class="lead" data-asks>${asks}</p>
<p>${t.what}</p>
${page.chooser === undefined ? "" : html`<p>${chooserWords(page.chooser, ctx.locale).hint}</p>`}
${link.sandbox ? html`<p class="notice" data-sandbox>${t.sandbox}</p>` : ""}
<p class="muted">${t.expires(formatDate(link.expiresAt, ctx.locale))}</p>
${action}`
  return layout(ctx, t.connectTitle(platform), body)
}

/** The accounts just connected (no `redirect_url` to return to). */
export const renderConnected = (ctx: PageContext, handles: ReadonlyArray<string>): string => {
  const t = texts[ctx.locale]
  const list = handles.map((handle) => isolated(handleOf(handle))).join(", ")
  return layout(
    ctx,
    t.connectedTitle,
    html`<div class="result" data-connected><h1>${t.connectedTitle}</h1><p>${
      handles.length > 1 ? t.connectedManyBody(list) : t.connectedBody(list)
    }</p></div>`
  )
}

/** The account picker of a platform whose consent may connect several accounts (Facebook Pages). */
export const renderChoose = (
  ctx: PageContext,
  outcome: Extract<Connect.ConnectOutcome, { _tag: "Choose" }>,
  action: string,
  showProblem: boolean
): string => {
  const t = chooserWords(outcome.chooser, ctx.locale)
  const items = outcome.choices.map(
    (choice, i) => html`<div class="check">
<input type="checkbox" id="page-${i}" name="page" value="${choice.id}">
<label for="page-${i}"><bdi>${choice.displayName ?? choice.handle}</bdi>${
      choice.displayName === null || choice.displayName === choice.handle ? "" : html`<span class="hint"><bdi>${handleOf(choice.handle)}</bdi></span>`
    }</label>
</div>`
  )
  const body = html`<h1>${t.title}</h1>
<p class="lead">${t.intro}</p>
${showProblem ? html`<div class="summary" role="alert"><p>${t.atLeastOne}</p></div>` : ""}
<form method="post" action="${action}">
<input type="hidden" name="state" value="${outcome.state}">
<input type="hidden" name="lang" value="${ctx.locale}">
<fieldset><legend>${t.title}</legend>${items}</fieldset>
<div class="actions"><button type="submit" class="approve">${t.button}</button></div>
</form>`
  return layout(ctx, t.title, body)
}

/** A callback that arrived in a browser that did not start its connection (no matching cookie). */
export const renderOtherBrowser = (ctx: PageContext): string =>
  problem(ctx, texts[ctx.locale].browserTitle, texts[ctx.locale].browserBody)

/** A token that names no link. */
export const renderUnknown = (ctx: PageContext): string => problem(ctx, texts[ctx.locale].unknownTitle, texts[ctx.locale].unknownBody)

/** The message of a failure in the page's language. */
const messageOf = (error: PostwireError, locale: Locale) => renderMessage(error.code, locale, { ...error.details, field: error.field })

/** A connect that ended without an account (the person declined, the link is used or expired, the platform failed). */
export const renderFailure = (ctx: PageContext, error: PostwireError, canRetry: boolean): string => {
  const t = texts[ctx.locale]
  const title =
    error.code === "connect_link_expired"
      ? t.expiredTitle
      : error.code === "connect_link_used"
        ? t.usedTitle
        : error.code === "connect_refused"
          ? t.refusedTitle
          : error.code === "connect_state_invalid"
            ? t.stateTitle
            : t.failedTitle
  const paragraphs = [messageOf(error, ctx.locale), ...(canRetry ? [t.tryAgain] : [])]
  return layout(
    ctx,
    title,
    html`<div class="result problem" data-error="${error.code}"><h1>${title}</h1>${paragraphs.map((p) => html`<p>${p}</p>`)}</div>`
  )
}

/** The fields of the simulated consent page. */
export interface SandboxForm {
  readonly platform: Platform
  /** The platform's name for people. */
  readonly platformName: string
  /** Several accounts may be allowed: the picker's words label the handles. */
  readonly chooser: Connect.ChooserInfo | undefined
  /** The consent request's query, carried through the form. */
  readonly params: Readonly<Record<string, string>>
  readonly handles: ReadonlyArray<string>
  readonly problem: boolean
}

/** The simulated consent page of sandbox connects. */
export const renderSandboxConsent = (ctx: PageContext, form: SandboxForm, action: string): string => {
  const t = texts[ctx.locale]
  const platform = form.platformName
  const chooser = form.chooser === undefined ? undefined : chooserWords(form.chooser, ctx.locale)
  const fields =
    chooser !== undefined
      ? [0, 1].map(
          (i) => html`<div class="field"><label for="handle-${i}">${chooser.sandboxHandle(i + 1)}</label>
<input id="handle-${i}" name="handle" value="${form.handles[i] ?? ""}" autocomplete="off"><span class="hint">${
            i === 0 ? t.sandboxHandleHint : t.sandboxPageHint
          }</span></div>`
        )
      : [
          html`<div class="field"><label for="handle-0">${t.sandboxHandle}</label>
<input id="handle-0" name="handle" value="${form.handles[0] ?? ""}" required autocomplete="off"><span class="hint">${t.sandboxHandleHint}</span></div>`
        ]
  const hidden = Object.entries(form.params).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)
  const body = html`<h1>${t.sandboxTitle(platform)}</h1>
<p class="lead">${t.sandboxIntro(platform)}</p>
${form.problem ? html`<div class="summary" role="alert"><p>${t.badHandle}</p></div>` : ""}
<form method="post" action="${action}">
${hidden}
<input type="hidden" name="lang" value="${ctx.locale}">
${fields}
<div class="actions"><button type="submit" name="decision" value="allow" class="approve">${t.allow}</button>
<button type="submit" name="decision" value="cancel" class="reject">${t.cancel}</button></div>
</form>`
  return layout(ctx, t.sandboxTitle(platform), body)
}

/** A simulated consent request with a missing or wrong parameter (as a platform answers it). */
export const renderBadConsentRequest = (ctx: PageContext, parameter: string): string =>
  problem(ctx, texts[ctx.locale].badRequestTitle, texts[ctx.locale].badRequestBody(parameter))
