/**
 * The approval page, `/approve/{token}`, as views: plain server-rendered HTML in English and
 * Indonesian, usable with a keyboard, a screen reader and a phone, and without JavaScript (a
 * small inline script only hides what does not apply). Built with the escaping `html` template,
 * so nothing a person typed reaches the page unescaped.
 *
 * It shows the post (caption, media, destinations, schedule) and, for each shortvideo direct
 * target that needs it, the consent form TikTok's Content Sharing Guidelines require: the
 * creator's nickname, a privacy level with no default, interaction switches off by default
 * (greyed out when the creator turned them off), the commercial content disclosure, and the
 * Music Usage Confirmation (plus Branded Content Policy) declaration before the button.
 *
 * The texts are in `ApprovalTexts`, the form in `ApprovalForm`, the stylesheet and script in
 * `ApprovalStyles`.
 *
 * @since 0.1.0
 */
import type { Approvals, CreatorInfo } from "@postwire/core"
import { displayNameOf, type ErrorCode, type Locale, type PostwireError, renderMessage } from "@postwire/domain"
import { formatDate } from "../html/DateText.ts"
import { html, raw, render, type SafeHtml } from "../html/Html.ts"
import {
  blankValues,
  declarationFor,
  type FieldProblem,
  type FormState,
  fieldsOf,
  handleOf,
  idsOf
} from "./ApprovalForm.ts"
import { script, styles } from "./ApprovalStyles.ts"
import { policyLinks, type Texts, texts } from "./ApprovalTexts.ts"
import { isolated } from "./UserText.ts"

type Summary = Approvals.PageSummary

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

const time = (at: number, locale: Locale) =>
  html`<time datetime="${new Date(at).toISOString()}">${formatDate(at, locale)}</time>`

/** A link to this page in `locale`, keeping `redirect_url`. */
const pageHref = (ctx: PageContext, locale: Locale, suffix = "") => {
  const query = new URLSearchParams({ lang: locale })
  if (ctx.redirectUrl !== undefined) query.set("redirect_url", ctx.redirectUrl)
  return `${ctx.path}${suffix}?${query.toString()}`
}

const catalogText = (code: ErrorCode, locale: Locale) => renderMessage(code, locale)

/** Joins fragments with new lines, as the page's markup lays them out. */
const lines = (fragments: ReadonlyArray<SafeHtml>): SafeHtml => raw(fragments.map(render).join("\n"))

/** A whole document. */
const layout = (ctx: PageContext, title: string, body: SafeHtml, withScript = false): string => {
  const t = texts[ctx.locale]
  const switcher = (["en", "id"] as const).map(
    (l) =>
      html`<li><a href="${pageHref(ctx, l)}" hreflang="${l}" lang="${l}"${l === ctx.locale ? raw(' aria-current="true"') : ""}>${texts[l].languageName}</a></li>`
  )
  return render(html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title} · Postwire</title>
<style nonce="${ctx.nonce}">${raw(styles)}</style>
</head>
<body>
<header class="top"><span class="brand">Postwire</span>
<nav aria-label="${t.languages}"><ul>${switcher}</ul></nav></header>
<main id="main">
${body}
</main>
<footer>Postwire</footer>
${withScript ? html`<script nonce="${ctx.nonce}">${raw(script)}</script>` : ""}
</body>
</html>`)
}

const captionSection = (t: Texts, summary: Summary) =>
  html`<section aria-labelledby="caption-heading"><h2 id="caption-heading">${t.caption}</h2>
<p class="caption"><bdi>${summary.post.caption}</bdi></p></section>`

const mediaSection = (ctx: PageContext, t: Texts, summary: Summary) => {
  const n = summary.media.length
  if (n === 0) return html``
  const items = summary.media.map((m, i) => {
    const src = `${ctx.path}/media/${m.id}`
    return m.kind === "image"
      ? html`<li><img src="${src}" alt="${t.image(i + 1, n)}"${m.width && m.height ? html` width="${m.width}" height="${m.height}"` : ""}></li>`
      : html`<li><video controls preload="metadata" src="${src}" aria-label="${t.video(i + 1, n)}">${t.noVideo}</video></li>`
  })
  return html`<section aria-labelledby="media-heading"><h2 id="media-heading">${t.media}</h2>
<ul class="media">${lines(items)}</ul></section>`
}

const targetsSection = (t: Texts, summary: Summary) => {
  const items = summary.targets.map(
    (p) =>
      html`<li><span class="platform">${displayNameOf(p.target.platform)}</span>
<bdi class="handle">${handleOf(p)}</bdi>
<span class="status">${t.status[p.target.status]}</span></li>`
  )
  return html`<section aria-labelledby="targets-heading"><h2 id="targets-heading">${t.destinations}</h2>
<ul class="targets">${lines(items)}</ul></section>`
}

const scheduleSection = (ctx: PageContext, t: Texts, summary: Summary, withExpiry: boolean) =>
  html`<section aria-labelledby="schedule-heading"><h2 id="schedule-heading">${t.schedule}</h2>
<p>${summary.post.scheduledAt === null ? t.soon : time(summary.post.scheduledAt, ctx.locale)}</p>
${withExpiry ? html`<p class="muted">${t.expires(formatDate(summary.approval.expiresAt, ctx.locale))}</p>` : ""}</section>`

const problemFor = (problems: ReadonlyArray<FieldProblem>, fieldId: string) => problems.find((p) => p.fieldId === fieldId)

const describedBy = (...ids: ReadonlyArray<string | undefined>) => {
  const list = ids.filter((id): id is string => id !== undefined)
  return list.length === 0 ? "" : html` aria-describedby="${list.join(" ")}"`
}

const checkbox = (options: {
  readonly id: string
  readonly name: string
  readonly label: string
  readonly checked: boolean
  readonly disabled?: boolean
  readonly hint?: string
  /** A `data-` attribute the script finds the switch by. */
  readonly data?: "data-disclose" | "data-branded"
  readonly invalid?: FieldProblem | undefined
}) => {
  const hintId = options.hint === undefined ? undefined : `${options.id}-hint`
  const problemId = options.invalid === undefined ? undefined : `${options.id}-problem`
  return html`<div class="check${options.disabled ? " off" : ""}">
<input type="checkbox" role="switch" id="${options.id}" name="${options.name}"${options.checked ? raw(" checked") : ""}${options.disabled ? raw(" disabled") : ""}${options.data ? raw(` ${options.data}`) : ""}${options.invalid ? raw(' aria-invalid="true"') : ""}${describedBy(hintId, problemId)}>
<label for="${options.id}">${options.label}${hintId ? html`<span class="hint" id="${hintId}">${options.hint}</span>` : ""}${problemId ? html`<span class="problem-text" id="${problemId}">${options.invalid?.message}</span>` : ""}</label>
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
    .filter((level): level is keyof Texts["privacyLevels"] => level in t.privacyLevels)
    .map(
      (level) =>
        html`<option value="${level}"${v.privacy === level ? raw(" selected") : ""}${level === "SELF_ONLY" && isBranded ? raw(" disabled") : ""}>${t.privacyLevels[level]}</option>`
    )
  const noteId = `${ids.privacy}-note`
  const problemId = `${ids.privacy}-problem`
  return html`<fieldset data-consent>
<legend>${t.consentHeading(isolated(handle))}</legend>
<p class="creator">${t.postingAs} <strong>${creator.nickname}</strong></p>
<div class="field">
<label for="${ids.privacy}">${t.privacy}</label>
<select id="${ids.privacy}" name="${names.privacy}" required${privacyProblem ? raw(' aria-invalid="true"') : ""}${describedBy(privacyProblem ? problemId : undefined, noteId)}>
<option value=""${v.privacy === "" ? raw(" selected") : ""}>${t.choose}</option>${levels}
</select>
<p class="hint" id="${noteId}" data-private-note${isBranded && creator.privacyLevelOptions.includes("SELF_ONLY") ? "" : raw(" hidden")}>${t.brandedNotPrivate}</p>
${privacyProblem ? html`<p class="problem-text" id="${problemId}">${privacyProblem.message}</p>` : ""}
</div>
<fieldset>
<legend>${t.allowUsers}</legend>
${checkbox({ id: ids.comment, name: names.comment, label: t.comment, checked: v.allowComment && !creator.commentDisabled, disabled: creator.commentDisabled, ...(creator.commentDisabled ? { hint: t.offByCreator } : {}) })}
${checkbox({ id: ids.duet, name: names.duet, label: t.duet, checked: v.allowDuet && !creator.duetDisabled, disabled: creator.duetDisabled, ...(creator.duetDisabled ? { hint: t.offByCreator } : {}) })}
${checkbox({ id: ids.stitch, name: names.stitch, label: t.stitch, checked: v.allowStitch && !creator.stitchDisabled, disabled: creator.stitchDisabled, ...(creator.stitchDisabled ? { hint: t.offByCreator } : {}) })}
</fieldset>
${checkbox({ id: ids.disclose, name: names.disclose, label: t.disclose, checked: v.disclose, hint: t.discloseHint, data: "data-disclose" })}
<fieldset id="${ids.brandOptions}" data-brands>
<legend>${t.promotes}</legend>
${checkbox({ id: ids.yourBrand, name: names.yourBrand, label: t.yourBrand, checked: v.yourBrand, hint: t.yourBrandHint, invalid: brandProblem })}
${checkbox({ id: ids.branded, name: names.branded, label: t.branded, checked: v.branded, hint: t.brandedHint, data: "data-branded" })}
</fieldset>
</fieldset>`
}

const unavailableNotice = (ctx: PageContext, t: Texts, target: Approvals.PageTarget, error: PostwireError) =>
  html`<fieldset>
<legend>${t.consentHeading(isolated(handleOf(target)))}</legend>
<p class="notice" role="status">${t.cannotPost} ${renderMessage(error.code, ctx.locale, { ...error.details, field: error.field })}</p>
</fieldset>`

const declarationBlock = (t: Texts, shown: "music" | "branded") => {
  const link = (href: string, text: string) => html`<a href="${href}" rel="noopener noreferrer" target="_blank">${text}</a>`
  const links: Record<string, SafeHtml> = {
    music: link(policyLinks.music, t.musicPolicy),
    branded: link(policyLinks.branded, t.brandedPolicy)
  }
  // A declaration is text with the names of TikTok's policies, which become links.
  const withLinks = (parts: ReadonlyArray<string>) => parts.map((part) => links[part] ?? part)
  return html`<div id="declaration" class="declaration">
<p data-declaration="music"${shown === "music" ? "" : raw(" hidden")}>${withLinks(t.declarationMusic)}</p>
<p data-declaration="branded"${shown === "branded" ? "" : raw(" hidden")}>${withLinks(t.declarationBranded)}</p>
</div>`
}

/** The page of a pending link: the post and the decision form. */
export const renderPending = (ctx: PageContext, summary: Summary, form: FormState): string => {
  const t = texts[ctx.locale]
  const consentTargets = summary.targets.filter((p) => p.consentForm !== undefined)
  const blocked = consentTargets.some((p) => p.consentForm?._tag === "Unavailable")
  const consentBlocks = consentTargets.map((p) =>
    p.consentForm?._tag === "Ready"
      ? consentFieldset(t, p, p.consentForm.creator, form)
      : p.consentForm?._tag === "Unavailable"
        ? unavailableNotice(ctx, t, p, p.consentForm.error)
        : html``
  )
  const hasConsent = consentTargets.some((p) => p.consentForm?._tag === "Ready")
  const declaration = declarationFor(form.values)
  const summaryBlock =
    form.problems.length === 0
      ? ""
      : html`<div class="summary" id="problems" tabindex="-1" role="alert" aria-labelledby="problems-heading">
<h2 id="problems-heading">${t.fix}</h2>
<ul>${form.problems.map((p) => html`<li><a href="#${p.fieldId}">${p.message}</a></li>`)}</ul>
</div>`
  const hidden: ReadonlyArray<readonly [string, string]> = [
    ["csrf", form.csrf],
    ["lang", ctx.locale],
    ...(ctx.redirectUrl === undefined ? [] : [["redirect_url", ctx.redirectUrl] as const]),
    ...(hasConsent ? [["declaration", declaration] as const] : [])
  ]
  const body = html`<h1>${t.heading}</h1>
<p class="lead">${t.intro}</p>
${summaryBlock}
${captionSection(t, summary)}
${mediaSection(ctx, t, summary)}
${targetsSection(t, summary)}
${scheduleSection(ctx, t, summary, true)}
<form method="post" action="${ctx.path}" novalidate>
${lines(hidden.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`))}
${lines(consentBlocks)}
<div class="field">
<label for="reason">${t.reason}</label>
<textarea id="reason" name="reason" maxlength="1000" aria-describedby="reason-hint">${form.reason}</textarea>
<span class="hint" id="reason-hint">${t.reasonHint}</span>
</div>
${hasConsent ? html`${declarationBlock(t, declaration)}\n<p class="muted">${t.processing}</p>` : ""}
<div class="actions" id="decision">
<button type="submit" class="approve" name="decision" value="approve"${blocked ? raw(" disabled") : ""}${hasConsent ? raw(' aria-describedby="declaration"') : ""}>${t.approve}</button>
<button type="submit" class="reject" name="decision" value="reject">${t.reject}</button>
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
  const body = html`<div class="result${approved ? "" : " rejected"}" role="status">
<h1>${approved ? t.approvedTitle : t.rejectedTitle}</h1>
<p>${message}</p>
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
  const body = html`<div class="result${approved ? "" : " rejected"}">
<h1>${t.decidedTitle}</h1>
<p>${catalogText("already_decided", ctx.locale)}
${approved ? t.decidedApproved(decidedAt) : t.decidedRejected(decidedAt)}</p>
</div>
${captionSection(t, summary)}
${targetsSection(t, summary)}`
  return layout(ctx, t.decidedTitle, body)
}

/** A link past its `expires_at`. */
export const renderExpired = (ctx: PageContext, expiresAt: number): string => {
  const t = texts[ctx.locale]
  const body = html`<div class="result problem">
<h1>${t.expiredTitle}</h1>
<p>${catalogText("approval_expired", ctx.locale)} ${t.expiredBody(formatDate(expiresAt, ctx.locale))}</p>
</div>`
  return layout(ctx, t.expiredTitle, body)
}

/** A token that names no approval (mistyped, or replaced by a newer link). */
export const renderUnknown = (ctx: PageContext): string => {
  const t = texts[ctx.locale]
  return layout(ctx, t.unknownTitle, html`<div class="result problem"><h1>${t.unknownTitle}</h1><p>${t.unknownBody}</p></div>`)
}

/** A link whose post was cancelled before anyone decided. */
export const renderClosed = (ctx: PageContext, summary: Summary): string => {
  const t = texts[ctx.locale]
  const body = html`<div class="result problem"><h1>${t.closedTitle}</h1><p>${t.closedBody}</p></div>
${targetsSection(t, summary)}`
  return layout(ctx, t.closedTitle, body)
}

/** A form sent without its anti-forgery token (or from another site). */
export const renderStaleForm = (ctx: PageContext): string => {
  const t = texts[ctx.locale]
  const body = html`<div class="result problem"><h1>${t.staleTitle}</h1><p>${t.staleBody}</p>
<p><a href="${pageHref(ctx, ctx.locale)}">${t.reload}</a></p></div>`
  return layout(ctx, t.staleTitle, body)
}

/** A link whose `redirect_url` the workspace does not allow. */
export const renderMisconfigured = (ctx: PageContext): string => {
  const t = texts[ctx.locale]
  const body = html`<div class="result problem"><h1>${t.misconfiguredTitle}</h1>
<p>${catalogText("invalid_redirect_url", ctx.locale)}</p></div>`
  return layout(ctx, t.misconfiguredTitle, body)
}

/** A decision the service could not save for a reason the form cannot fix (the platform is down). */
export const renderFailed = (ctx: PageContext, error: PostwireError): string => {
  const t = texts[ctx.locale]
  const body = html`<div class="result problem"><h1>${t.failedTitle}</h1>
<p>${renderMessage(error.code, ctx.locale, { ...error.details, field: error.field })}</p>
<p><a href="${pageHref(ctx, ctx.locale)}">${t.backToPost}</a></p></div>`
  return layout(ctx, t.failedTitle, body)
}
