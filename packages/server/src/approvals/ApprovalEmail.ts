/**
 * The approval e-mail, beside the page its link opens: the engine says what to send (who, which
 * post, the link, the language: `Mailer.MailMessage`), this module words it in that language,
 * as plain text and as HTML through the shared escaping template.
 *
 * @since 0.4.0
 */
import type { MailMessage } from "@postwire/core"
import { displayNameOf, type Locale } from "@postwire/domain"
import { formatDate } from "../html/DateText.ts"
import { html, render } from "../html/Html.ts"

/** An e-mail ready to send: subject and both bodies. */
export interface RenderedMail {
  readonly to: string
  readonly subject: string
  /** The plain-text body. */
  readonly text: string
  /** The same content as HTML. */
  readonly html: string
}

/** Every text of the approval e-mail, per language. */
export const emailTexts = {
  en: {
    subject: (caption: string) => `Please approve a post: ${caption}`,
    intro: "A post is waiting for your approval before it is published.",
    caption: "Caption",
    destinations: "Where it goes",
    when: "When",
    soon: "As soon as it is approved",
    action: "Review and approve or reject it here:",
    button: "Review the post",
    expires: (date: string) => `The link works until ${date}. Anyone with the link can decide, so do not forward it.`
  },
  id: {
    subject: (caption: string) => `Mohon setujui unggahan: ${caption}`,
    intro: "Sebuah unggahan menunggu persetujuan Anda sebelum diterbitkan.",
    caption: "Keterangan",
    destinations: "Tujuan",
    when: "Waktu",
    soon: "Segera setelah disetujui",
    action: "Tinjau lalu setujui atau tolak di sini:",
    button: "Tinjau unggahan",
    expires: (date: string) =>
      `Tautan berlaku sampai ${date}. Siapa pun yang memiliki tautan ini dapat memutuskan, jadi jangan meneruskannya.`
  }
} as const satisfies Record<Locale, unknown>

const linkStyle = "display:inline-block;padding:10px 16px;background:#0b5394;color:#fff;text-decoration:none;border-radius:4px"
const quoteStyle = "white-space:pre-wrap;margin:0 0 1em;padding-left:1em;border-left:3px solid #888"

/** The approval e-mail of `message`, in its language. */
export const approvalEmail = (message: MailMessage): RenderedMail => {
  const t = emailTexts[message.locale]
  const caption = message.caption
  const short = caption.length > 60 ? `${caption.slice(0, 57).trimEnd()}…` : caption
  const destinations = message.destinations
    .map((d) => `${displayNameOf(d.platform)} @${d.handle.replace(/^@/, "")}`)
    .join(", ")
  const when = message.scheduledAt === null ? t.soon : formatDate(message.scheduledAt, message.locale)
  const expires = t.expires(formatDate(message.expiresAt, message.locale))
  const text = [
    t.intro,
    "",
    `${t.caption}:`,
    caption,
    "",
    `${t.destinations}: ${destinations}`,
    `${t.when}: ${when}`,
    "",
    t.action,
    message.url,
    "",
    expires
  ].join("\n")
  const body = html`<!doctype html><html lang="${message.locale}"><body style="font-family:system-ui,sans-serif;color:#1a1a1a;line-height:1.5">
<p>${t.intro}</p>
<p><strong>${t.caption}:</strong></p>
<blockquote style="${quoteStyle}">${caption}</blockquote>
<p><strong>${t.destinations}:</strong> ${destinations}<br>
<strong>${t.when}:</strong> ${when}</p>
<p>${t.action}</p>
<p><a href="${message.url}" style="${linkStyle}">${t.button}</a></p>
<p style="word-break:break-all">${message.url}</p>
<p style="color:#444">${expires}</p>
</body></html>`
  return { to: message.to, subject: t.subject(short), text, html: render(body) }
}

/** A message in the words it is sent with. */
export const renderMail = (message: MailMessage): RenderedMail => approvalEmail(message)
