/**
 * The public approval page: `GET /approve/{token}` shows it, `POST /approve/{token}` takes the
 * form's decision (then 303 to `redirect_url` or to `/approve/{token}/done`), and
 * `GET /approve/{token}/media/{media_id}` serves the post's media to it.
 *
 * The form is protected against cross-site forgery by a double-submit token: a random value in
 * a `SameSite=Strict`, `HttpOnly` cookie scoped to the link's path, and its HMAC under the
 * server secret in a hidden field; a form from another origin is refused too. Every page is
 * sent with a strict Content-Security-Policy (nonce-based), `Referrer-Policy: no-referrer` (the
 * token is in the address) and `frame-ancestors 'none'`.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"
import { Cause, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import { Approvals, ApprovalToken, EngineConfig, Ids, Keyring } from "@postwire/core"
import { Ids as Id, PostwireError } from "@postwire/domain"
import { publicPathOf, ServerConfig } from "../config/ServerConfig.ts"
import { emptyForm, type FormFields, type FormState, problemOfError, readForm } from "./ApprovalForm.ts"
import { pageLocale } from "./ApprovalTexts.ts"
import {
  type PageContext,
  renderClosed,
  renderDecided,
  renderExpired,
  renderFailed,
  renderMisconfigured,
  renderPending,
  renderResult,
  renderStaleForm,
  renderUnknown
} from "./ApprovalView.ts"

const csrfCookie = "postwire_approval"

const pageHeaders = (nonce: string) => ({
  "content-security-policy": [
    "default-src 'none'",
    "img-src 'self'",
    "media-src 'self'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    // The form's redirect leaves for the workspace's https site.
    "form-action 'self' https:",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join("; "),
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
})

const html = (body: string, status: number, ctx: PageContext) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: pageHeaders(ctx.nonce) })

const redirect = (location: string) =>
  HttpServerResponse.redirect(location, {
    status: 303,
    headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
  })

/** The token and the page context of the current request. */
const pageRequest = (lang: string | undefined, redirectUrl: string | undefined) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const token = params.token ?? ""
    const nonce = yield* Ids.use((ids) => ids.secret(16))
    const config = yield* ServerConfig
    const ctx: PageContext = {
      locale: pageLocale(lang, request.headers["accept-language"]),
      // Links and the form point below the public address's path: a server mounted under a
      // prefix (or behind a proxy on a path) serves its pages there.
      path: `${publicPathOf(config.publicUrl)}/approve/${encodeURIComponent(token)}`,
      redirectUrl: redirectUrl === "" ? undefined : redirectUrl,
      nonce
    }
    return { request, params, token, ctx }
  })

const queryOf = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://localhost").searchParams

const csrfMessage = (token: string, nonce: string) => `approval-form:${ApprovalToken.approvalTokenHash(token)}:${nonce}`

/** The hidden form field that proves the form came from this page (HMAC of the cookie's value). */
const csrfProof = (keyring: Keyring.Keyring, token: string, nonce: string) =>
  Keyring.sign(keyring, "approval-form", csrfMessage(token, nonce)).toString("base64url")

/** Whether a form's proof was made by this server (under any listed master) for this page and cookie. */
const genuineProof = (keyring: Keyring.Keyring, token: string, nonce: string, proof: string) =>
  /^[A-Za-z0-9_-]{43}$/.test(proof) &&
  Keyring.verify(keyring, "approval-form", csrfMessage(token, nonce), Buffer.from(proof, "base64url"), {
    legacy: (master) => createHmac("sha256", master).update(csrfMessage(token, nonce)).digest()
  })

const wellFormedNonce = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9_-]{22,64}$/.test(value)


/**
 * Whether a form post comes from a page of this server, when the browser says where from. Under
 * `Referrer-Policy: no-referrer` browsers send `Origin: null`; the cookie check still applies.
 */
const sameOrigin = (request: HttpServerRequest.HttpServerRequest, publicUrl: string) => {
  const origin = request.headers.origin
  if (origin === undefined || origin === "null") return true
  try {
    const host = new URL(origin).host
    return host === request.headers.host || host === new URL(publicUrl).host
  } catch {
    return false
  }
}

/** Renders an unexpected failure as a page, never a stack trace. */
const orFailurePage = (ctx: () => PageContext) =>
  Effect.catchCause((cause: Cause.Cause<unknown>) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause as Cause.Cause<never>)
      : Effect.logError("approval page failed", cause).pipe(
          Effect.as(html(renderFailed(ctx(), new PostwireError({ code: "internal_error" })), 500, ctx()))
        )
  )

const fallbackContext: PageContext = { locale: "en", path: "/", redirectUrl: undefined, nonce: "failure" }

/** `GET /approve/{token}`: the page, in the language of `?lang=` or `Accept-Language`. */
const showApprovalPage = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = queryOf(request)
  const { token, ctx } = yield* pageRequest(query.get("lang") ?? undefined, query.get("redirect_url") ?? undefined)
  const page = yield* Approvals.loadApprovalPage(token)
  switch (page._tag) {
    case "Unknown":
      return html(renderUnknown(ctx), 404, ctx)
    case "Expired":
      return html(renderExpired(ctx, page.approval.expiresAt), 410, ctx)
    case "Decided":
      return html(renderDecided(ctx, page.summary), 200, ctx)
    case "Closed":
      return html(renderClosed(ctx, page.summary), 200, ctx)
    case "Pending": {
      if (ctx.redirectUrl !== undefined && !Approvals.isAllowedRedirect(ctx.redirectUrl, page.workspace.allowedRedirectDomains)) {
        return html(renderMisconfigured(ctx), 400, ctx)
      }
      const settings = yield* EngineConfig
      const config = yield* ServerConfig
      const existing = request.cookies[csrfCookie]
      const nonce = wellFormedNonce(existing) ? existing : yield* Ids.use((ids) => ids.secret(24))
      const response = html(renderPending(ctx, page.summary, emptyForm(csrfProof(settings.keyring, token, nonce))), 200, ctx)
      return HttpServerResponse.setCookieUnsafe(response, csrfCookie, nonce, {
        path: ctx.path,
        httpOnly: true,
        sameSite: "strict",
        secure: config.publicUrl.startsWith("https:")
      })
    }
  }
}).pipe(orFailurePage(() => fallbackContext))

/** `POST /approve/{token}`: the form's decision. */
const submitApprovalForm = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
  const fields: FormFields = Object.fromEntries(
    // A browser never sends NUL characters; one that arrives anyway is dropped, not stored.
    Object.entries(UrlParams.toRecord(body)).map(([k, v]) => [k, (typeof v === "string" ? v : v[0])?.replaceAll("\0", "")])
  )
  const { token, ctx } = yield* pageRequest(fields.lang, fields.redirect_url)
  const settings = yield* EngineConfig
  const config = yield* ServerConfig

  const nonce = request.cookies[csrfCookie]
  const proof = fields.csrf ?? ""
  if (!wellFormedNonce(nonce) || !genuineProof(settings.keyring, token, nonce, proof) || !sameOrigin(request, config.publicUrl)) {
    return html(renderStaleForm(ctx), 403, ctx)
  }

  const page = yield* Approvals.loadApprovalPage(token)
  if (page._tag === "Unknown") return html(renderUnknown(ctx), 404, ctx)
  if (page._tag === "Expired") return html(renderExpired(ctx, page.approval.expiresAt), 410, ctx)
  if (page._tag === "Decided") return html(renderDecided(ctx, page.summary), 409, ctx)
  if (page._tag === "Closed") return html(renderClosed(ctx, page.summary), 409, ctx)
  if (ctx.redirectUrl !== undefined && !Approvals.isAllowedRedirect(ctx.redirectUrl, page.workspace.allowedRedirectDomains)) {
    return html(renderMisconfigured(ctx), 400, ctx)
  }

  const submitted = readForm(fields, page.summary, ctx.locale)
  const again = (problems: FormState["problems"], status: number, summary = page.summary) =>
    html(renderPending(ctx, summary, { csrf: proof, values: submitted.values, reason: submitted.reason, problems }), status, ctx)
  if (submitted.decision === undefined) return again([], 400)
  if (submitted.problems.length > 0) return again(submitted.problems, 422)

  const reason = submitted.reason.trim()
  const decided = yield* Approvals.decideApproval(
    token,
    {
      decision: submitted.decision,
      ...(reason === "" ? {} : { reason }),
      ...(submitted.decision === "approve" && Object.keys(submitted.consent).length > 0 ? { consent: submitted.consent } : {}),
      ...(ctx.redirectUrl === undefined ? {} : { redirect_url: ctx.redirectUrl })
    }
  ).pipe(Effect.result)
  if (decided._tag === "Success") {
    return redirect(ctx.redirectUrl ?? `${ctx.path}/done?lang=${ctx.locale}`)
  }
  const error = decided.failure
  if (!(error instanceof PostwireError)) return yield* Effect.fail(error)
  switch (error.code) {
    case "already_decided": {
      const now = yield* Approvals.loadApprovalPage(token)
      return now._tag === "Decided" ? html(renderDecided(ctx, now.summary), 409, ctx) : html(renderUnknown(ctx), 404, ctx)
    }
    case "approval_expired":
      return html(renderExpired(ctx, page.summary.approval.expiresAt), 410, ctx)
    case "not_found":
      return html(renderUnknown(ctx), 404, ctx)
    case "invalid_redirect_url":
      return html(renderMisconfigured(ctx), 400, ctx)
    case "invalid_state":
      return html(renderClosed(ctx, page.summary), 409, ctx)
  }
  if (error.targetId !== undefined) {
    // The creator's options changed under the person: show the fresh form with the reason.
    const fresh = yield* Approvals.loadApprovalPage(token)
    return again([problemOfError(error, ctx.locale)], error.httpStatus, fresh._tag === "Pending" ? fresh.summary : page.summary)
  }
  return html(renderFailed(ctx, error), error.httpStatus, ctx)
}).pipe(orFailurePage(() => fallbackContext))

/** `GET /approve/{token}/done`: the result of the decision just taken. */
const showResult = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { token, ctx } = yield* pageRequest(queryOf(request).get("lang") ?? undefined, undefined)
  const page = yield* Approvals.loadApprovalPage(token)
  switch (page._tag) {
    case "Unknown":
      return html(renderUnknown(ctx), 404, ctx)
    case "Expired":
      return html(renderExpired(ctx, page.approval.expiresAt), 410, ctx)
    case "Decided":
      return html(renderResult(ctx, page.summary), 200, ctx)
    case "Closed":
      return html(renderClosed(ctx, page.summary), 200, ctx)
    case "Pending":
      return redirect(`${ctx.path}?lang=${ctx.locale}`)
  }
}).pipe(orFailurePage(() => fallbackContext))

/** Parses `Range: bytes=a-b` against a size; `undefined` for the whole body, `null` when unsatisfiable. */
const byteRange = (header: string | undefined, size: number): { start: number; end: number } | undefined | null => {
  if (header === undefined) return undefined
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined
  const [, from = "", to = ""] = match
  if (from === "" && to === "") return undefined
  let start: number
  let end: number
  if (from === "") {
    start = Math.max(0, size - Number(to))
    end = size - 1
  } else {
    start = Number(from)
    end = to === "" ? size - 1 : Math.min(Number(to), size - 1)
  }
  return start > end || start >= size ? null : { start, end }
}

/** `GET /approve/{token}/media/{media_id}`: bytes of the post's media while the link is pending. */
const serveApprovalMedia = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const found = yield* Approvals.loadApprovalMedia(params.token ?? "", Id.unchecked("media", params.mediaId ?? "")).pipe(Effect.option)
  const headers = {
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "referrer-policy": "no-referrer",
    "accept-ranges": "bytes"
  }
  if (Option.isNone(found)) return HttpServerResponse.text("Not found", { status: 404, headers })
  const { record, bytes } = found.value
  const range = byteRange(request.headers.range, bytes.length)
  if (range === null) {
    return HttpServerResponse.empty({ status: 416, headers: { ...headers, "content-range": `bytes */${bytes.length}` } })
  }
  if (range === undefined) return HttpServerResponse.uint8Array(bytes, { contentType: record.mime, headers })
  return HttpServerResponse.uint8Array(bytes.subarray(range.start, range.end + 1), {
    status: 206,
    contentType: record.mime,
    headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${bytes.length}` }
  })
}).pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause as Cause.Cause<never>)
      : Effect.logError("approval media failed", cause).pipe(
          Effect.as(HttpServerResponse.text("Something went wrong", { status: 500 }))
        )
  )
)

/** Every route of the approval page. */
export const ApprovalRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/approve/:token", showApprovalPage),
  HttpRouter.add("POST", "/approve/:token", submitApprovalForm),
  HttpRouter.add("GET", "/approve/:token/done", showResult),
  HttpRouter.add("GET", "/approve/:token/media/:mediaId", serveApprovalMedia)
)
