/**
 * The common machinery of the fake authorization servers (TikTok, Instagram, Facebook, Threads):
 * a real HTTP server on 127.0.0.1 (random port) answering JSON, HTML pages and redirects; a
 * consent page a person (or Chromium) answers with "Allow" or "Cancel"; single-use authorization
 * codes; tokens with lifetimes measured on the fake's own clock, which a test moves with
 * `advance`; faults a test arms per route; and the log of every request, for counters.
 *
 * Each platform's fake (`TikTokOAuthFake.ts`, `InstagramOAuthFake.ts`, `FacebookOAuthFake.ts`,
 * `ThreadsOAuthFake.ts`) builds on it and exports the same tiny API:
 *
 * ```ts
 * const fake = await TikTokOAuthFake.start()            // Promise API, for any test runner
 * fake.redirectUris.push("http://127.0.0.1:4000/connect/callback/shortvideo")
 * // … point Postwire's authorize/token/API hosts at fake.url, drive the flow …
 * fake.count("token")                                   // requests a route received
 * fake.advance(25 * 60 * 60 * 1000)                     // the fake's clock moves a day on
 * await fake.stop()
 *
 * const fake = yield* TikTokOAuthFake.scoped()          // Effect API: stops with the scope
 * ```
 *
 * The consent page is `<form method="post" action="/consent">` with buttons named `decision`
 * (`allow`, `cancel`; texts "Allow" and "Cancel") and, on Facebook's, one checkbox per Page
 * (`name="page"`, labelled with the Page's name, checked by default). `approve(url)` answers it
 * without a browser: it returns the callback address the platform would redirect to.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect, type Scope } from "effect"
import { Faults } from "./FakeServer.ts"

/** A request as the fakes see it. */
export interface OAuthRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** Query parameters and form fields together. */
  readonly params: Readonly<Record<string, string>>
}

/** What a fake answers. */
export type OAuthReply =
  /** `headers`: more answer headers (Meta's `X-Business-Use-Case-Usage`), lower-case names. */
  | { readonly status: number; readonly json: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** A body written as is (long integer ids that JSON numbers would round). */
  | { readonly status: number; readonly raw: string }
  | { readonly status: number; readonly html: string }
  /** A 302 to this address. */
  | { readonly redirect: string }
  | { readonly lose: true }
  | { readonly hang: true }

/** The fake's routes: names a request's route and answers it. */
export interface OAuthRoutes {
  readonly route: (request: OAuthRequest) => string
  readonly handle: (route: string, request: OAuthRequest) => OAuthReply
}

/** A pending authorization: what the authorize page was asked, waiting for the person's answer. */
export interface PendingAuthorization {
  readonly id: string
  readonly clientId: string
  readonly redirectUri: string
  readonly state: string | null
  readonly scopes: ReadonlyArray<string>
  readonly codeChallenge: string | null
}

/** An authorization code: single use, short-lived. */
export interface IssuedCode {
  readonly code: string
  readonly clientId: string
  readonly redirectUri: string
  readonly scopes: ReadonlyArray<string>
  readonly codeChallenge: string | null
  readonly issuedAt: number
  /** Facebook: the Pages the person chose. */
  readonly pageIds: ReadonlyArray<string>
  used: boolean
}

/** A token the fake issued. */
export interface IssuedToken {
  readonly token: string
  readonly kind: "short" | "long" | "access" | "refresh" | "page"
  readonly scopes: ReadonlyArray<string>
  readonly issuedAt: number
  /** `null`: never expires. */
  readonly expiresAt: number | null
  /** The consent it belongs to: revoking it kills every token of it. */
  readonly grant: string
  readonly pageId?: string | undefined
  revoked: boolean
}

/** The fake server and the state every platform's fake shares. */
export interface OAuthFake {
  /** The fake's origin (`http://127.0.0.1:port`): every host setting of its platform points here. */
  readonly url: string
  /** Every request received, in order, with its route. */
  readonly requests: Array<OAuthRequest & { readonly route: string }>
  /** How many requests a route received. */
  readonly count: (route: string) => number
  readonly faults: Faults
  /** Redirect addresses registered with the app; an authorize request naming another is refused. */
  readonly redirectUris: Array<string>
  /** The fake's clock, epoch milliseconds. */
  readonly now: () => number
  /** Moves the fake's clock on. */
  readonly advance: (ms: number) => void
  /** Answers the consent page at `authorizeUrl` as a person would, returning where the platform redirects. */
  readonly approve: (authorizeUrl: string, answer?: ConsentAnswer) => Promise<string>
  readonly stop: () => Promise<void>
  /** Pending authorizations by id. */
  readonly pending: Map<string, PendingAuthorization>
  readonly codes: Map<string, IssuedCode>
  readonly tokens: Map<string, IssuedToken>
  /** A new random token or code with a prefix. */
  readonly mint: (prefix: string) => string
  /** Issues a token valid for `lifetimeSec` (`null`: forever). */
  readonly issueToken: (fields: Omit<IssuedToken, "token" | "issuedAt" | "expiresAt" | "revoked"> & { readonly lifetimeSec: number | null; readonly prefix: string }) => IssuedToken
  /** A token that is known, not revoked and not expired. */
  readonly validToken: (token: string | undefined, kinds?: ReadonlyArray<IssuedToken["kind"]>) => IssuedToken | undefined
  /** Revokes every token of a grant. */
  readonly revokeGrant: (grant: string) => void
}

/** What a person does on the consent page. */
export interface ConsentAnswer {
  readonly decision?: "allow" | "cancel"
  /** Facebook: the Pages to tick (all by default). */
  readonly pageIds?: ReadonlyArray<string>
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** The consent page: who asks for what, "Allow" and "Cancel", and optional Page checkboxes. */
export const consentPage = (options: {
  readonly platform: string
  readonly appName: string
  readonly person: string
  readonly pending: PendingAuthorization
  readonly pages?: ReadonlyArray<{ readonly id: string; readonly name: string }>
}): OAuthReply => ({
  status: 200,
  html: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.platform)}: authorize ${escapeHtml(options.appName)}</title></head>
<body>
<h1>${escapeHtml(options.appName)} wants to access your ${escapeHtml(options.platform)} account</h1>
<p>Logged in as <strong>${escapeHtml(options.person)}</strong></p>
<p>It asks for: ${options.pending.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(", ")}</p>
<form method="post" action="/consent">
<input type="hidden" name="authorization" value="${escapeHtml(options.pending.id)}">
${(options.pages ?? [])
  .map(
    (p) =>
      `<p><label><input type="checkbox" name="page" value="${escapeHtml(p.id)}" checked> ${escapeHtml(p.name)}</label></p>`
  )
  .join("\n")}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
</form>
</body></html>`
})

/** A platform's error page (a bad client id or redirect address is never redirected). */
export const errorPage = (status: number, message: string): OAuthReply => ({
  status,
  html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><h1>Something went wrong</h1><p>${escapeHtml(message)}</p></body></html>`
})

/** `base` with query parameters added, and an optional fragment. */
export const withParams = (base: string, params: Readonly<Record<string, string | null | undefined>>, fragment = ""): string => {
  const url = new URL(base)
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) url.searchParams.set(key, value)
  return `${url.toString()}${fragment}`
}

/** Starts a fake server with `routes`; `onConsent` answers the consent form. */
export const listen = (
  makeRoutes: (fake: OAuthFake) => OAuthRoutes,
  options: { readonly startAt?: number } = {}
): Promise<OAuthFake> =>
  new Promise((resolve) => {
    const requests: OAuthFake["requests"] = []
    const faults = new Faults()
    const sockets = new Set<Socket>()
    let offset = 0
    const base = options.startAt ?? Date.now()
    const tokens = new Map<string, IssuedToken>()
    let routes: OAuthRoutes | undefined
    let server: Server | undefined
    const fake: OAuthFake = {
      url: "",
      requests,
      faults,
      count: (route) => requests.filter((r) => r.route === route).length,
      redirectUris: [],
      now: () => base + offset,
      advance: (ms) => {
        offset += ms
      },
      approve: async (authorizeUrl, answer = {}) => {
        const page = await fetch(authorizeUrl, { redirect: "manual" })
        if (page.status === 302) return page.headers.get("location") ?? ""
        const html = await page.text()
        const authorization = /name="authorization" value="([^"]+)"/.exec(html)?.[1]
        if (authorization === undefined) throw new Error(`no consent page at ${authorizeUrl}: ${page.status} ${html}`)
        const form = new URLSearchParams({ authorization, decision: answer.decision ?? "allow" })
        const pageIds = answer.pageIds ?? [...html.matchAll(/name="page" value="([^"]+)"/g)].map((m) => m[1]!)
        for (const id of pageIds) form.append("page", id)
        const decided = await fetch(`${fake.url}/consent`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.toString()
        })
        return decided.headers.get("location") ?? ""
      },
      stop: () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy()
          if (server === undefined) done()
          else server.close(() => done())
        }),
      pending: new Map(),
      codes: new Map(),
      tokens,
      mint: (prefix) => `${prefix}${randomBytes(12).toString("hex")}`,
      issueToken: ({ lifetimeSec, prefix, ...fields }) => {
        const now = fake.now()
        const issued: IssuedToken = {
          ...fields,
          token: fake.mint(prefix),
          issuedAt: now,
          expiresAt: lifetimeSec === null ? null : now + lifetimeSec * 1000,
          revoked: false
        }
        tokens.set(issued.token, issued)
        return issued
      },
      validToken: (token, kinds) => {
        const issued = token === undefined ? undefined : tokens.get(token)
        if (issued === undefined || issued.revoked) return undefined
        if (issued.expiresAt !== null && issued.expiresAt <= fake.now()) return undefined
        if (kinds !== undefined && !kinds.includes(issued.kind)) return undefined
        return issued
      },
      revokeGrant: (grant) => {
        for (const issued of tokens.values()) if (issued.grant === grant) issued.revoked = true
      }
    }
    server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const url = new URL(req.url ?? "/", fake.url)
        const body = Buffer.concat(chunks).toString("utf8")
        const params: Record<string, string> = Object.fromEntries(url.searchParams)
        if (req.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") === true) {
          Object.assign(params, Object.fromEntries(new URLSearchParams(body)))
        }
        const request: OAuthRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers: req.headers, body, params }
        const route = routes!.route(request)
        requests.push({ ...request, route })
        const before = faults.take(route, false)
        let reply: OAuthReply = (before as OAuthReply | undefined) ?? routes!.handle(route, request)
        if (before === undefined) reply = (faults.take(route, true) as OAuthReply | undefined) ?? reply
        if ("hang" in reply) return
        if ("lose" in reply) {
          req.socket.destroy()
          return
        }
        if ("redirect" in reply) {
          res.writeHead(302, { location: reply.redirect })
          res.end()
          return
        }
        if ("html" in reply) {
          res.writeHead(reply.status, { "content-type": "text/html; charset=utf-8" })
          res.end(reply.html)
          return
        }
        res.writeHead(reply.status, { "content-type": "application/json; charset=UTF-8", ...("headers" in reply ? reply.headers : {}) })
        res.end("raw" in reply ? reply.raw : JSON.stringify(reply.json))
      })
    })
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server!.address() as AddressInfo
      Object.assign(fake, { url: `http://127.0.0.1:${port}` })
      routes = makeRoutes(fake)
      resolve(fake)
    })
  })

/** The Effect form of a fake's `start`: the fake stops when the scope closes. */
export const scopedFake = <F extends OAuthFake>(start: () => Promise<F>): Effect.Effect<F, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(start), (fake) => Effect.promise(() => fake.stop()))

/** Reads the consent form's answer: the pending authorization and the person's decision. */
export const consentAnswer = (
  fake: OAuthFake,
  request: OAuthRequest
): { readonly pending: PendingAuthorization; readonly allowed: boolean; readonly pageIds: ReadonlyArray<string> } | undefined => {
  const pending = fake.pending.get(request.params.authorization ?? "")
  if (pending === undefined) return undefined
  fake.pending.delete(pending.id)
  return {
    pending,
    allowed: request.params.decision === "allow",
    pageIds: new URLSearchParams(request.body).getAll("page")
  }
}

/** Issues a code for a consent. */
export const issueCode = (
  fake: OAuthFake,
  pending: PendingAuthorization,
  pageIds: ReadonlyArray<string> = []
): IssuedCode => {
  const code: IssuedCode = {
    code: fake.mint("code_"),
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    scopes: pending.scopes,
    codeChallenge: pending.codeChallenge,
    issuedAt: fake.now(),
    pageIds,
    used: false
  }
  fake.codes.set(code.code, code)
  return code
}

/** Registers a pending authorization and returns it. */
export const remember = (fake: OAuthFake, fields: Omit<PendingAuthorization, "id">): PendingAuthorization => {
  const pending = { ...fields, id: fake.mint("auth_") }
  fake.pending.set(pending.id, pending)
  return pending
}

/** The bearer token of a request (`Authorization: Bearer …`). */
export const bearer = (request: OAuthRequest): string | undefined =>
  /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]

/** The version prefix of a Graph path stripped: `/v23.0/me` → `/me`. */
export const unversioned = (path: string): string => path.replace(/^\/v\d+\.\d+(?=\/)/, "")
