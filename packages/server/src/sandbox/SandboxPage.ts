/**
 * `GET /sandbox/{workspace_id}/{post_id}/{target_id}`: the page a sandbox target's permalink
 * points to. A sandbox account publishes to the simulated platform, so its "post" exists nowhere
 * but here: the page says so, and shows what the target would have published (the platform, the
 * account, the caption, how many media items) and when.
 *
 * Only sandbox targets have a page: a live target, or ids that do not belong together, answer the
 * same 404 page as unknown ids, telling nothing about what exists. The ids are random (a target id
 * carries 80 random bits), as unguessable as a real platform's post address. Sent with a strict
 * Content-Security-Policy, `noindex`, in English or Indonesian (`?lang=id`, `Accept-Language`).
 *
 * @since 0.5.0
 */
import { createHash } from "node:crypto"
import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { EngineConfig, Store } from "@postwire/core"
import { Ids, type Locale } from "@postwire/domain"
import { html, raw, render, type SafeHtml } from "../html/Html.ts"
import { formatDate } from "../html/DateText.ts"
import { styles } from "../approvals/ApprovalStyles.ts"
import { pageLocale } from "../approvals/ApprovalTexts.ts"

/** The path the pages are served under; `{public URL}/sandbox` is the simulated platform's `pageUrl`. */
export const sandboxPath = "/sandbox"

const texts = {
  en: {
    title: (platform: string) => `Sandbox post on ${platform}`,
    notice: (platform: string) =>
      `This target belongs to a sandbox account: nothing was sent to ${platform}. A live account's target links to the post on ${platform} instead.`,
    account: "Account",
    status: "Status",
    published: "Published",
    notYet: "Not published yet",
    caption: "Caption",
    media: (n: number) => (n === 1 ? "1 media item" : `${n} media items`),
    noMedia: "No media",
    missingTitle: "No such sandbox post",
    missing: "This address shows no sandbox post. It may be mistyped, or the post was deleted."
  },
  id: {
    title: (platform: string) => `Unggahan sandbox di ${platform}`,
    notice: (platform: string) =>
      `Target ini milik akun sandbox: tidak ada yang dikirim ke ${platform}. Target akun live menautkan ke unggahan di ${platform}.`,
    account: "Akun",
    status: "Status",
    published: "Terbit",
    notYet: "Belum terbit",
    caption: "Keterangan",
    media: (n: number) => `${n} media`,
    noMedia: "Tanpa media",
    missingTitle: "Unggahan sandbox tidak ditemukan",
    missing: "Alamat ini tidak menampilkan unggahan sandbox. Mungkin salah ketik, atau unggahannya sudah dihapus."
  }
} as const

/** The page's one stylesheet, allowed by its hash: nothing else may load or run. */
const styleHash = `sha256-${createHash("sha256").update(styles).digest("base64")}`

const headers = {
  "content-security-policy": `default-src 'none'; style-src '${styleHash}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "x-robots-tag": "noindex",
  "cache-control": "no-store"
}

const page = (locale: Locale, title: string, body: SafeHtml, status: number) =>
  HttpServerResponse.text(
    render(html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${raw(styles)}</style>
</head>
<body>
<header class="top"><span class="brand">Postwire</span><span class="muted">sandbox</span></header>
<main>
${body}
</main>
</body>
</html>
`),
    { status, contentType: "text/html; charset=utf-8", headers }
  )

/** The page's language, as the approval page reads it: `?lang=en|id`, then `Accept-Language`. */
const localeOf = (request: HttpServerRequest.HttpServerRequest): Locale =>
  pageLocale(new URL(request.url, "http://localhost").searchParams.get("lang") ?? undefined, request.headers["accept-language"])

const showTarget = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const locale = localeOf(request)
  const t = texts[locale]
  const missing = page(locale, t.missingTitle, html`<h1>${t.missingTitle}</h1><p class="lead">${t.missing}</p>`, 404)
  const { workspaceId = "", postId = "", targetId = "" } = yield* HttpRouter.params
  const store = yield* Store
  const engine = yield* EngineConfig
  const workspace = Ids.unchecked("workspace", workspaceId)
  const found = yield* store.getPost(workspace, Ids.unchecked("post", postId)).pipe(Effect.orDie)
  if (Option.isNone(found)) return missing
  const target = found.value.targets.find((t) => t.id === targetId)
  if (target === undefined) return missing
  const account = yield* store.getAccount(workspace, target.accountId).pipe(Effect.orDie)
  if (Option.isNone(account) || !account.value.sandbox) return missing
  const platform = engine.platforms.get(target.platform)?.displayName ?? target.platform
  const post = found.value.post
  const title = t.title(platform)
  return page(
    locale,
    title,
    html`<h1>${title}</h1>
<p class="lead">${t.notice(platform)}</p>
<dl>
<dt>${t.account}</dt><dd class="creator"><strong>${account.value.handle}</strong> (${platform})</dd>
<dt>${t.status}</dt><dd>${target.publishedAt === null ? t.notYet : html`${t.published} ${formatDate(target.publishedAt, locale)}`}</dd>
</dl>
<h2>${t.caption}</h2>
<p class="caption">${post.caption}</p>
<p class="muted">${post.media.length === 0 ? t.noMedia : t.media(post.media.length)}</p>`,
    200
  )
}).pipe(Effect.withSpan("sandbox.page"))

/** The route of the sandbox pages. */
export const SandboxPageRoute = HttpRouter.add("GET", `${sandboxPath}/:workspaceId/:postId/:targetId`, showTarget)
