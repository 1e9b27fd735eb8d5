/**
 * The public connect routes:
 *
 * - `GET /connect/{token}`: the link's page; `GET /connect/{token}/start` sends the person to the
 *   platform (a fresh `state` each time, so only the latest attempt can finish). A platform with
 *   a connect form (a plugin's `connect.form`) shows it on the page; it posts to
 *   `POST /connect/{token}/start`, which also takes `{"fields": {…}}` as JSON from a caller
 *   without a browser and answers JSON (`status` `connected` with `account_ids`, `redirect`
 *   with `url`, `choose`, or the documented `error`).
 * - `GET /connect/callback/{platform}`: the platform's answer; then the result page, the account
 *   picker (a platform with `capabilities.choosesAccounts`: Facebook Pages), or a 303 to the
 *   link's `redirect_url` with `status` and `account_id` or `error`. `POST
 *   /connect/callback/{platform}` takes the picked accounts (form `page`, one per account).
 * - `GET|POST /connect/sandbox/authorize`: the simulated consent page of sandbox connects.
 * - `GET /connect/documents/{platform}/{name}`: a platform's public connect document (atproto
 *   OAuth's client metadata), JSON.
 * - `POST /connect/deauthorize/{platform|meta}`: a platform's deauthorization callback (form
 *   `signed_request`; a plugin declares it with `connect.deauthorization`: Facebook, Instagram,
 *   Threads), verified with that app's secret (`meta`: every platform that takes them, whichever verifies).
 *
 * Pages are sent with a nonce-based Content-Security-Policy, `Referrer-Policy: no-referrer`
 * (tokens and codes are in addresses) and `frame-ancestors 'none'`; nothing unexpected ever
 * shows a stack: it is logged and answered with a plain failure page.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import { Cause, Clock, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import { Connect, EngineConfig, Ids, SandboxConsent } from "@postwire/core"
import { ErrorDetail, localeFromAcceptLanguage, type Platform, platformPattern, PostwireError } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { errorResponse } from "../http/Failures.ts"
import {
  type OpenForm,
  type PageContext,
  pageLocale,
  renderBadConsentRequest,
  renderChoose,
  renderConnected,
  renderFailure,
  renderOpen,
  renderOtherBrowser,
  renderSandboxConsent,
  renderUnknown
} from "./ConnectPage.ts"

const pageHeaders = (nonce: string) => ({
  "content-security-policy": [
    "default-src 'none'",
    "img-src 'self' https:",
    `style-src 'nonce-${nonce}'`,
    "form-action 'self' https:",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join("; "),
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "cache-control": "no-store"
})

const page = (body: string, status: number, ctx: PageContext) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: pageHeaders(ctx.nonce) })

const redirect = (location: string) =>
  HttpServerResponse.redirect(location, {
    status: 303,
    headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
  })

/**
 * The cookie that binds a connection's `state` to the browser that started it: set when the
 * person continues to the platform, and required on the platform's answer, so a callback address
 * (code and state) opened in another browser connects nothing. Named after the state's digest,
 * so several connections in one browser do not overwrite each other; it holds nothing secret.
 */
const stateCookieName = (state: string) => `pw_connect_${createHash("sha256").update(state).digest("hex").slice(0, 24)}`

const stateCookie = (state: string, publicUrl: string) =>
  [
    `${stateCookieName(state)}=1`,
    "Path=/connect",
    "Max-Age=3600",
    "HttpOnly",
    "SameSite=Lax",
    ...(publicUrl.startsWith("https:") ? ["Secure"] : [])
  ].join("; ")

/** Whether the request carries the cookie of `state` (a request without a state is judged by the state check). */
const fromStartingBrowser = (request: HttpServerRequest.HttpServerRequest, state: string | undefined) =>
  state === undefined ||
  state === "" ||
  (request.headers.cookie ?? "").split(";").some((pair) => pair.trim().split("=", 1)[0] === stateCookieName(state))

const queryOf = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://localhost").searchParams

/** The page context of the current request. */
const contextOf = (path: string | undefined, lang: string | null | undefined, query?: Record<string, string>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const nonce = yield* Ids.use((ids) => ids.secret(16))
    return { locale: pageLocale(lang, request.headers["accept-language"]), path, query, nonce } satisfies PageContext
  })

const formOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty)), (body) => {
    const all: Record<string, Array<string>> = {}
    for (const [name, value] of body) {
      if (typeof value !== "string") continue
      const list = all[name] ?? []
      list.push(value.replaceAll("\0", ""))
      all[name] = list
    }
    return {
      first: (name: string) => all[name]?.[0],
      all: (name: string) => all[name] ?? [],
      /** Every field's first value, but those named in `except`. */
      fields: (...except: ReadonlyArray<string>) =>
        Object.fromEntries(
          Object.entries(all)
            .filter(([name]) => !except.includes(name))
            .map(([name, values]) => [name, values[0] ?? ""])
        )
    }
  })

const fallback: PageContext = { locale: "en", path: undefined, nonce: "failure" }

/** Renders an unexpected failure as a page, never a stack trace. */
const orFailurePage = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  effect.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.logError("connect page failed", cause).pipe(
            Effect.as(page(renderFailure(fallback, new PostwireError({ code: "internal_error" }), false), 500, fallback))
          )
    )
  )

const statusOf = (error: PostwireError) => error.httpStatus

/** Answers a connect outcome: a redirect to the link's `redirect_url`, or a page. */
const answerOutcome = (outcome: Connect.ConnectOutcome, ctx: PageContext, choosePath: string, showProblem = false) => {
  const back = Connect.returnUrl(outcome)
  switch (outcome._tag) {
    case "BadState":
      return page(renderFailure(ctx, new PostwireError({ code: "connect_state_invalid" }), false), 400, ctx)
    case "Choose":
      return page(renderChoose(ctx, outcome, choosePath, showProblem), showProblem ? 422 : 200, ctx)
    case "Connected":
      return back !== undefined ? redirect(back) : page(renderConnected(ctx, outcome.accounts.map((a) => a.handle)), 200, ctx)
    case "Failed":
      // A retryable failure keeps the link open: show the page, so the person can try again.
      return back !== undefined && !outcome.canRetry
        ? redirect(back)
        : page(renderFailure(ctx, outcome.error, outcome.canRetry), statusOf(outcome.error), ctx)
  }
}

/** The form of an open link's page: posted to the start address. */
const openForm = (path: string, fields: OpenForm["fields"], values: OpenForm["values"], error: PostwireError | undefined): OpenForm => ({
  fields,
  values,
  error,
  action: `${path}/start`
})

/** `GET /connect/{token}`. */
const showConnectPage = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const token = params.token ?? ""
  const path = `/connect/${encodeURIComponent(token)}`
  const ctx = yield* contextOf(path, queryOf(request).get("lang"))
  const found = yield* Connect.loadConnectPage(token)
  switch (found._tag) {
    case "Unknown":
      return page(renderUnknown(ctx), 404, ctx)
    case "Expired":
      return page(renderFailure(ctx, new PostwireError({ code: "connect_link_expired" }), false), 410, ctx)
    case "Used":
      return page(renderFailure(ctx, new PostwireError({ code: "connect_link_used" }), false), 409, ctx)
    case "Open": {
      const fields = yield* Connect.connectForm(found.link)
      const form = fields.length === 0 ? undefined : openForm(path, fields, {}, undefined)
      return page(renderOpen(ctx, found, `${path}/start?lang=${ctx.locale}`, form), 200, ctx)
    }
  }
}).pipe(orFailurePage)

/** A connect failure (or an unexpected one) as the page shows it. */
const errorOf = (failure: unknown) =>
  failure instanceof PostwireError
    ? failure
    : typeof failure === "object" && failure !== null && "code" in failure
      ? new PostwireError({
          code: (failure as { code: PostwireError["code"] }).code,
          platformCode: (failure as { platformCode?: string }).platformCode,
          details: (failure as { details?: PostwireError["details"] }).details
        })
      : new PostwireError({ code: "internal_error" })

/** The answer to a start that goes to the platform: a 303 with the cookie that binds its `state` to this browser. */
const toPlatform = (url: string) =>
  Effect.gen(function* () {
    const state = new URL(url).searchParams.get("state")
    const config = yield* ServerConfig
    return state === null ? redirect(url) : HttpServerResponse.setHeader(redirect(url), "set-cookie", stateCookie(state, config.publicUrl))
  })

/**
 * `GET /connect/{token}/start` (to the platform's authorization page) and
 * `POST /connect/{token}/start` (the connect form's values): the page's answers.
 */
const startAuthorization = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const token = params.token ?? ""
  const path = `/connect/${encodeURIComponent(token)}`
  let lang = queryOf(request).get("lang")
  let given: Record<string, string> | undefined
  if (request.method === "POST") {
    const form = yield* formOf(request)
    lang = form.first("lang") ?? lang
    given = form.fields("lang")
  }
  const ctx = yield* contextOf(path, lang)
  const started = yield* Connect.beginAuthorization(token, given).pipe(Effect.result)
  if (started._tag === "Failure") {
    const error = errorOf(started.failure)
    return page(renderFailure(ctx, error, error.code === "platform_unavailable"), statusOf(error), ctx)
  }
  const found = started.success
  switch (found._tag) {
    case "Unknown":
      return page(renderUnknown(ctx), 404, ctx)
    case "Expired":
      return page(renderFailure(ctx, new PostwireError({ code: "connect_link_expired" }), false), 410, ctx)
    case "Used":
      return page(renderFailure(ctx, new PostwireError({ code: "connect_link_used" }), false), 409, ctx)
    case "AskFields":
      return page(
        renderOpen(ctx, found.page, `${path}/start?lang=${ctx.locale}`, openForm(path, found.form, found.values, found.error)),
        found.error === undefined ? 200 : statusOf(found.error),
        ctx
      )
    case "Redirect":
      return yield* toPlatform(found.url)
    case "Done": {
      const answer = answerOutcome(found.outcome, ctx, chooseAction(found.outcome))
      if (found.outcome._tag !== "Choose") return answer
      // The picker's answer must come from this browser, as a platform's callback must.
      const config = yield* ServerConfig
      return HttpServerResponse.setHeader(answer, "set-cookie", stateCookie(found.outcome.state, config.publicUrl))
    }
  }
}).pipe(orFailurePage)

/** The JSON body of a start without a browser: `{"fields": {"name": "value", …}}`. */
const jsonFields = (body: unknown): { readonly fields: Record<string, string> } | { readonly error: PostwireError } => {
  const invalid = (field: string, detail: ReturnType<typeof ErrorDetail.reason>) =>
    ({ error: new PostwireError({ code: "invalid_request", field, details: { detail } }) }) as const
  if (typeof body !== "object" || body === null || Array.isArray(body)) return invalid("body", ErrorDetail.reason("json_object"))
  for (const key of Object.keys(body)) if (key !== "fields") return invalid(key, ErrorDetail.reason("unknown_field"))
  const fields = (body as { fields?: unknown }).fields
  if (fields === undefined) return { fields: {} }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return invalid("fields", ErrorDetail.reason("must_be_object"))
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== "string") return invalid(`fields.${name}`, ErrorDetail.reason("must_be_string"))
    if (value.includes("\0")) return invalid(`fields.${name}`, ErrorDetail.reason("nul_character"))
    out[name] = value
  }
  return { fields: out }
}

/**
 * `POST /connect/{token}/start` with a JSON body: the connect form's values from a caller
 * without a browser (the link's token is the authority, as for the page). Answers
 * `{"status": "connected", "account_ids": […]}`, `{"status": "redirect", "url": …}` (a person
 * must open it in the browser that keeps the cookie set with it), `{"status": "choose", "state",
 * "choices": […]}` (post `state` and `page` ids to `/connect/callback/{platform}` with the cookie),
 * or `{"error": …}` in the documented shape.
 */
const startWithJson = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const config = yield* ServerConfig
  const locale = localeFromAcceptLanguage(request.headers["accept-language"])
  const refuse = (error: PostwireError) =>
    errorResponse(error, locale, config.publicUrl, { "cache-control": "no-store" })
  const body = yield* request.json.pipe(Effect.result)
  if (body._tag === "Failure") return refuse(new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("invalid_json") } }))
  const read = jsonFields(body.success)
  if ("error" in read) return refuse(read.error)
  const started = yield* Connect.beginAuthorization(params.token ?? "", read.fields).pipe(Effect.result)
  if (started._tag === "Failure") return refuse(errorOf(started.failure))
  const found = started.success
  const ok = (json: unknown) => HttpServerResponse.jsonUnsafe(json, { headers: { "cache-control": "no-store" } })
  switch (found._tag) {
    case "Unknown":
      return refuse(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("resource") } }))
    case "Expired":
      return refuse(new PostwireError({ code: "connect_link_expired" }))
    case "Used":
      return refuse(new PostwireError({ code: "connect_link_used" }))
    case "AskFields":
      return refuse(found.error ?? new PostwireError({ code: "invalid_request", field: "fields", details: { detail: ErrorDetail.reason("required") } }))
    case "Redirect":
      return HttpServerResponse.setHeader(
        ok({ status: "redirect", url: found.url }),
        "set-cookie",
        stateCookie(new URL(found.url).searchParams.get("state") ?? "", config.publicUrl)
      )
    case "Done": {
      const outcome = found.outcome
      switch (outcome._tag) {
        case "Connected":
          return ok({ status: "connected", account_ids: outcome.accounts.map((a) => a.id) })
        case "Choose":
          return HttpServerResponse.setHeader(
            ok({
              status: "choose",
              // Post `state` and one `page` per chosen id to `/connect/callback/{platform}`, with the cookie set here.
              state: outcome.state,
              choices: outcome.choices.map((c) => ({ id: c.id, handle: c.handle, display_name: c.displayName }))
            }),
            "set-cookie",
            stateCookie(outcome.state, config.publicUrl)
          )
        case "Failed":
          return refuse(outcome.error)
        case "BadState":
          return refuse(new PostwireError({ code: "connect_state_invalid" }))
      }
    }
  }
}).pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause as Cause.Cause<never>)
      : Effect.logError("connect start failed", cause).pipe(
          Effect.as(HttpServerResponse.jsonUnsafe({ error: { code: "internal_error" } }, { status: 500 }))
        )
  )
)

/** `POST /connect/{token}/start`: JSON from a caller without a browser, or the page's form. */
const postStart = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  return yield* type === "application/json" ? startWithJson : startAuthorization
})

/** Where a picker posts: the callback address of the link's platform. */
const chooseAction = (outcome: Connect.ConnectOutcome) =>
  outcome._tag === "BadState" ? "" : `/connect/callback/${encodeURIComponent(outcome.link.platform)}`

// A built-in platform's word or a plugin's: the connect link the state names says which it is.
const isPlatform = (value: string | undefined): value is Platform => value !== undefined && platformPattern.test(value)

/** `GET /connect/callback/{platform}`: the platform's answer. */
const receiveCallback = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const query = queryOf(request)
  // The platform's answer cannot be loaded twice: no language switcher here.
  const ctx = yield* contextOf(undefined, query.get("lang"))
  const platform = params.platform
  if (!isPlatform(platform)) return page(renderUnknown(ctx), 404, ctx)
  if (!fromStartingBrowser(request, query.get("state") ?? undefined)) return page(renderOtherBrowser(ctx), 400, ctx)
  const outcome = yield* Connect.completeCallback(platform, {
    code: query.get("code") ?? undefined,
    state: query.get("state") ?? undefined,
    error: query.get("error") ?? undefined,
    iss: query.get("iss") ?? undefined
  })
  return answerOutcome(outcome, ctx, chooseAction(outcome))
}).pipe(orFailurePage)

/** `POST /connect/callback/{platform}`: the accounts the person picked. */
const receiveChoice = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const form = yield* formOf(request)
  const ctx = yield* contextOf(undefined, form.first("lang"))
  const platform = params.platform
  if (!isPlatform(platform)) return page(renderUnknown(ctx), 404, ctx)
  if (!fromStartingBrowser(request, form.first("state"))) return page(renderOtherBrowser(ctx), 400, ctx)
  const outcome = yield* Connect.chooseAccounts(platform, form.first("state"), form.all("page"))
  return answerOutcome(outcome, ctx, chooseAction(outcome), true)
}).pipe(orFailurePage)

const handlePattern = /^[a-z0-9_.]{1,30}$/

/** The consent request's own parameters, carried through the simulated consent form. */
const consentParams = (params: SandboxConsent.AuthorizeParams): Record<string, string> => ({
  platform: params.platform,
  response_type: "code",
  redirect_uri: params.redirectUri,
  state: params.state,
  code_challenge: params.codeChallenge,
  code_challenge_method: "S256"
})

/** Whether a consent request names this server's own callback for its platform. */
const isOwnCallback = (params: SandboxConsent.AuthorizeParams) =>
  EngineConfig.useSync((settings) => params.redirectUri === Connect.callbackUrl(settings.publicBaseUrl, params.platform))

/** What the simulated consent page of `platform` shows: its name, and the picker's words when several accounts may be allowed. */
const consentOf = (platform: Platform) =>
  Effect.map(Connect.consentInfo(platform), (info) => ({ platform, platformName: info.platformName, chooser: info.chooser }))

/** `GET /connect/sandbox/authorize`: the simulated consent page. */
const showSandboxConsent = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = queryOf(request)
  const read = SandboxConsent.readAuthorizeParams(query)
  const ctx = yield* contextOf(
    SandboxConsent.authorizePath,
    query.get("lang"),
    read._tag === "Valid" ? consentParams(read) : undefined
  )
  if (read._tag === "Invalid") return page(renderBadConsentRequest(ctx, read.parameter), 400, ctx)
  // Like a platform with one registered redirect address: the consent never leaves for another site.
  if (!(yield* isOwnCallback(read))) return page(renderBadConsentRequest(ctx, "redirect_uri"), 400, ctx)
  const consent = yield* consentOf(read.platform)
  const handles = consent.chooser === undefined ? ["sandbox_creator"] : ["sandbox_account", "sandbox_account_two"]
  return page(
    renderSandboxConsent(ctx, { ...consent, params: consentParams(read), handles, problem: false }, SandboxConsent.authorizePath),
    200,
    ctx
  )
}).pipe(orFailurePage)

/** `POST /connect/sandbox/authorize`: Allow (a code) or Cancel (`access_denied`), back to the callback. */
const submitSandboxConsent = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = yield* formOf(request)
  const fields = new URLSearchParams()
  for (const name of ["platform", "response_type", "redirect_uri", "state", "code_challenge", "code_challenge_method"]) {
    const value = form.first(name)
    if (value !== undefined) fields.set(name, value)
  }
  const read = SandboxConsent.readAuthorizeParams(fields)
  const ctx = yield* contextOf(SandboxConsent.authorizePath, form.first("lang"), read._tag === "Valid" ? consentParams(read) : undefined)
  if (read._tag === "Invalid") return page(renderBadConsentRequest(ctx, read.parameter), 400, ctx)
  if (!(yield* isOwnCallback(read))) return page(renderBadConsentRequest(ctx, "redirect_uri"), 400, ctx)
  if (form.first("decision") !== "allow") return redirect(SandboxConsent.callbackUrl(read, { refused: true }))
  const handles = form.all("handle").map((h) => h.trim().toLowerCase())
  const chosen = handles.filter((h) => h !== "")
  const consent = yield* consentOf(read.platform)
  const valid = chosen.length > 0 && chosen.every((h) => handlePattern.test(h)) && (consent.chooser !== undefined || chosen.length === 1)
  if (!valid) {
    return page(
      renderSandboxConsent(ctx, { ...consent, params: consentParams(read), handles, problem: true }, SandboxConsent.authorizePath),
      422,
      ctx
    )
  }
  const settings = yield* EngineConfig
  const code = SandboxConsent.issue({
    secret: SandboxConsent.signingSecret(settings.keyring),
    now: yield* Clock.currentTimeMillis,
    platform: read.platform,
    redirectUri: read.redirectUri,
    codeChallenge: read.codeChallenge,
    accounts: [...new Set(chosen)].map((handle) => ({ handle })),
    several: consent.chooser !== undefined
  })
  return redirect(SandboxConsent.callbackUrl(read, { code }))
}).pipe(orFailurePage)

/** `POST /connect/deauthorize/{platform|meta}`: a person removed the app on the platform's side. */
const receiveDeauthorization = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = yield* formOf(request)
  const config = yield* ServerConfig
  const locale = localeFromAcceptLanguage(request.headers["accept-language"])
  const signed = form.first("signed_request")
  const refuse = (error: PostwireError) => errorResponse(error, locale, config.publicUrl)
  if (signed === undefined || signed === "") {
    return refuse(new PostwireError({ code: "invalid_request", field: "signed_request", details: { detail: ErrorDetail.reason("required") } }))
  }
  if (signed.length > 8192) {
    return refuse(
      new PostwireError({ code: "invalid_request", field: "signed_request", details: { detail: ErrorDetail.reason("max_length", { max: 8192 }) } })
    )
  }
  const params = yield* HttpRouter.params
  const which = params.platform
  // `meta`: every platform that takes signed deauthorizations, whichever verifies.
  const takes = which === "meta" || (isPlatform(which) && (yield* Connect.takesDeauthorization(which)))
  if (!takes || which === undefined) {
    return refuse(new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("resource") } }))
  }
  const result = yield* Connect.deauthorize(signed, which === "meta" ? undefined : which).pipe(Effect.result)
  if (result._tag === "Failure") {
    if (result.failure instanceof PostwireError) return refuse(result.failure)
    return yield* Effect.fail(result.failure)
  }
  return HttpServerResponse.jsonUnsafe({ received: true, disconnected: result.success.disconnected })
}).pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause as Cause.Cause<never>)
      : Effect.logError("deauthorization failed", cause).pipe(
          Effect.as(HttpServerResponse.jsonUnsafe({ error: { code: "internal_error" } }, { status: 500 }))
        )
  )
)

/** `GET /connect/documents/{platform}/{name}`: a platform's public connect document (JSON), or 404. */
const servePublicDocument = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* ServerConfig
  const locale = localeFromAcceptLanguage(request.headers["accept-language"])
  const params = yield* HttpRouter.params
  const name = params.name ?? ""
  const body = isPlatform(params.platform) && /^[a-z0-9._-]{1,64}$/.test(name) ? yield* Connect.publicDocument(params.platform, name) : undefined
  if (body === undefined) {
    const error = new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("resource") } })
    return errorResponse(error, locale, config.publicUrl)
  }
  // Public and the same for everyone: servers that fetch it may keep it a while.
  return HttpServerResponse.jsonUnsafe(body, { headers: { "cache-control": "public, max-age=300" } })
})

/** Every public connect route. */
export const ConnectRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/connect/callback/:platform", receiveCallback),
  HttpRouter.add("POST", "/connect/callback/:platform", receiveChoice),
  HttpRouter.add("GET", SandboxConsent.authorizePath, showSandboxConsent),
  HttpRouter.add("POST", SandboxConsent.authorizePath, submitSandboxConsent),
  HttpRouter.add("POST", "/connect/deauthorize/:platform", receiveDeauthorization),
  HttpRouter.add("GET", "/connect/documents/:platform/:name", servePublicDocument),
  HttpRouter.add("GET", "/connect/:token", showConnectPage),
  HttpRouter.add("GET", "/connect/:token/start", startAuthorization),
  HttpRouter.add("POST", "/connect/:token/start", postStart)
)
