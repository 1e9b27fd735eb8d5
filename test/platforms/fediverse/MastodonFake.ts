/**
 * A fake Mastodon server on loopback, following the API documentation:
 *
 * - apps: `POST /api/v1/apps` (https://docs.joinmastodon.org/methods/apps/#create);
 * - OAuth: `GET /oauth/authorize` (approves at once, or denies with `access_denied`; with
 *   `consentPage`, shows the authorization page whose "Authorize" and "Deny" buttons post the
 *   request back to `/oauth/authorize`, as Mastodon's own page does),
 *   `POST /oauth/token` with PKCE S256 checked when a challenge was given, `POST /oauth/revoke`
 *   (https://docs.joinmastodon.org/methods/oauth/);
 * - `GET /api/v1/accounts/verify_credentials`, `GET /api/v1/accounts/:id/statuses`;
 * - `GET /api/v2/instance` with `configuration` (https://docs.joinmastodon.org/methods/instance/#v2);
 * - `POST /api/v2/media` with its `description`, refused past
 *   `configuration.media_attachments.description_limit` (Mastodon's MediaAttachment validates
 *   `description` length up to 1,500 characters; 422
 *   `{"error":"Validation failed: Description is too long (maximum is 1500 characters)"}`,
 *   https://docs.joinmastodon.org/entities/Instance/#description_limit): 200 for an image, 202
 *   with `url: null` for a video, processed after
 *   `processingChecks` reads of `GET /api/v1/media/:id` (206 until then;
 *   https://docs.joinmastodon.org/methods/media/);
 * - `POST /api/v1/statuses` with the `Idempotency-Key` replay (the same key returns the same
 *   status; https://docs.joinmastodon.org/methods/statuses/#create), 422
 *   `{"error":"Validation failed: Text character limit of 500 exceeded"}`, attachments still
 *   processing refused, more than `max_media_attachments` refused, a video with other files refused;
 * - `GET /api/v1/statuses/:id`, `GET /api/v1/statuses/:id/context`, `DELETE /api/v1/statuses/:id`
 *   (someone else's: 404 `Record not found`);
 * - every answer carries `X-RateLimit-Limit/Remaining/Reset`; past the limit, 429
 *   `{"error":"Too many requests"}`, and media uploads have their own limit of 30 per 30 minutes
 *   (https://docs.joinmastodon.org/api/rate-limits/, "Media uploads");
 * - a token unknown or revoked: 401 `{"error":"The access token is invalid"}`.
 */
import { createHash } from "node:crypto"
import { Effect, type Scope } from "effect"
import * as FakeServer from "../fakes/FakeServer.ts"

export interface Status {
  readonly id: string
  readonly accountId: string
  readonly text: string
  readonly spoilerText: string
  readonly visibility: string
  readonly sensitive: boolean
  readonly language: string | null
  readonly mediaIds: ReadonlyArray<string>
  readonly inReplyToId: string | null
  readonly createdAt: string
}

export interface Media {
  readonly id: string
  readonly kind: "image" | "video"
  readonly mime: string
  readonly filename: string
  readonly size: number
  /** The `description` (alt text) sent with the upload; `null` without one. */
  readonly description: string | null
  checksLeft: number
}

export interface Person {
  readonly id: string
  readonly username: string
  readonly display_name: string
}

export interface MastodonFake extends FakeServer.FakeServer {
  readonly owner: Person
  readonly stranger: Person
  readonly apps: Array<{ name: string; client_id: string; client_secret: string; redirect_uris: ReadonlyArray<string>; scopes: string }>
  readonly tokens: Map<string, { accountId: string; clientId: string; scope: string; revoked: boolean }>
  readonly statuses: Array<Status>
  readonly media: Map<string, Media>
  /** `configuration` of `/api/v2/instance`. */
  configuration: {
    statuses: { max_characters: number; max_media_attachments: number; characters_reserved_per_url: number }
    media_attachments: {
      supported_mime_types: Array<string>
      image_size_limit: number
      video_size_limit: number
      image_matrix_limit: number
      video_matrix_limit: number
      description_limit: number
    }
  }
  /** Reads of a 202 video before it is processed. */
  processingChecks: number
  /** Calls left in the window; `X-RateLimit-Remaining`. */
  rateLimitRemaining: number
  /** Media uploads left in their own 30-minute window (30 at first). */
  mediaUploadsRemaining: number
  /** When the media uploads' window ends (`X-RateLimit-Reset` of a refused upload). */
  readonly mediaRateLimitReset: string
  readonly rateLimitReset: string
  /** The authorize page denies (`error=access_denied`). */
  deny: boolean
  /** `GET /oauth/authorize` shows a page to answer (a browser test) instead of approving at once. */
  consentPage: boolean
  /** A token for the owner, issued outside OAuth (adapter tests). */
  readonly ownerToken: string
  /** A token of someone else. */
  readonly strangerToken: string
  /** Adds a status as if posted by `person` (a reply from someone). */
  readonly addStatus: (person: Person, text: string, inReplyToId: string | null) => Status
  readonly statusesOf: (accountId: string) => ReadonlyArray<Status>
}

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" })
/** Mastodon's count (StatusLengthValidator): URLs as `characters_reserved_per_url`, remote mentions as their local part. */
const countOf = (text: string, perUrl: number) => {
  const countable = text.replace(/https?:\/\/\S+/g, "x".repeat(perUrl)).replace(/(@\w+)@[\w.-]+\.\w+/g, "$1")
  return [...graphemes.segment(countable)].length
}

const parseMultipart = (request: FakeServer.FakeRequest) => {
  const type = String(request.headers["content-type"] ?? "")
  const boundary = /boundary=(.+)$/.exec(type)?.[1]
  const fields: Record<string, string> = {}
  let file: { filename: string; mime: string; size: number } | undefined
  if (boundary === undefined) return { fields, file }
  for (const part of request.body.split(`--${boundary}`)) {
    const name = /name="([^"]+)"/.exec(part)?.[1]
    if (name === undefined) continue
    const [head, ...rest] = part.split("\r\n\r\n")
    const value = rest.join("\r\n\r\n").replace(/\r\n$/, "")
    if (name === "file") {
      file = { filename: /filename="([^"]*)"/.exec(head!)?.[1] ?? "", mime: /Content-Type: (\S+)/i.exec(head!)?.[1] ?? "", size: Buffer.byteLength(value, "latin1") }
    } else fields[name] = value
  }
  return { fields, file }
}

const error = (status: number, text: string, headers: Record<string, string> = {}): FakeServer.FakeReply => ({ status, json: { error: text }, headers })

export const make = (): Effect.Effect<MastodonFake, never, Scope.Scope> =>
  Effect.gen(function* () {
    const statusId = FakeServer.idSequence("1130")
    const mediaId = FakeServer.idSequence("2240")
    const appId = FakeServer.idSequence("app")
    const codes = new Map<string, { clientId: string; redirectUri: string; scope: string; challenge: string | undefined }>()
    let fake!: MastodonFake

    const owner: Person = { id: "109876543210", username: "maya", display_name: "Maya Bakes" }
    const stranger: Person = { id: "108000000001", username: "rio", display_name: "Rio" }
    const accounts = [owner, stranger]
    let clock = Date.parse("2026-12-05T08:00:00Z")
    const now = () => {
      clock = Math.max(clock + 1000, Date.now())
      return new Date(clock).toISOString()
    }

    const accountJson = (person: Person) => ({
      id: person.id,
      username: person.username,
      acct: person === owner ? person.username : `${person.username}@other.example`,
      display_name: person.display_name,
      avatar: `${fake.origin}/avatars/${person.id}.png`,
      url: `${fake.origin}/@${person.username}`
    })
    const mediaJson = (m: Media) => ({
      id: m.id,
      type: m.kind,
      url: m.checksLeft > 0 ? null : `${fake.origin}/files/${m.id}`,
      preview_url: `${fake.origin}/files/${m.id}/small`,
      description: m.description
    })
    const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")
    const statusJson = (s: Status) => {
      const person = accounts.find((p) => p.id === s.accountId)!
      return {
        id: s.id,
        created_at: s.createdAt,
        in_reply_to_id: s.inReplyToId,
        sensitive: s.sensitive,
        spoiler_text: s.spoilerText,
        visibility: s.visibility,
        language: s.language,
        uri: `${fake.origin}/users/${person.username}/statuses/${s.id}`,
        url: `${fake.origin}/@${person.username}/${s.id}`,
        favourites_count: 0,
        content: `<p>${s.text.split("\n").map(escapeHtml).join("<br />")}</p>`,
        account: accountJson(person),
        media_attachments: s.mediaIds.map((id) => mediaJson(fake.media.get(id)!))
      }
    }

    const idempotency = new Map<string, string>()

    const bearer = (request: FakeServer.FakeRequest) => {
      const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1]
      const grant = token === undefined ? undefined : fake.tokens.get(token)
      return grant === undefined || grant.revoked ? undefined : grant
    }

    const routes: FakeServer.FakeRoutes = {
      route: (r) => {
        const p = r.path
        if (r.method === "POST" && p === "/api/v1/apps") return "apps"
        if (p === "/oauth/authorize") return "authorize"
        if (p === "/oauth/token") return "token"
        if (p === "/oauth/revoke") return "revoke"
        if (p === "/api/v1/accounts/verify_credentials") return "verify"
        if (p === "/api/v2/instance") return "instance"
        if (r.method === "POST" && p === "/api/v2/media") return "upload"
        if (/^\/api\/v1\/media\/[^/]+$/.test(p)) return "media"
        if (r.method === "POST" && p === "/api/v1/statuses") return "status"
        if (/^\/api\/v1\/accounts\/[^/]+\/statuses$/.test(p)) return "account_statuses"
        if (/^\/api\/v1\/statuses\/[^/]+\/context$/.test(p)) return "context"
        if (r.method === "DELETE" && /^\/api\/v1\/statuses\/[^/]+$/.test(p)) return "delete"
        if (/^\/api\/v1\/statuses\/[^/]+$/.test(p)) return "get_status"
        return "unknown"
      },
      handle: (route, r) => {
        const limits = {
          "x-ratelimit-limit": "300",
          "x-ratelimit-remaining": String(Math.max(0, fake.rateLimitRemaining)),
          "x-ratelimit-reset": fake.rateLimitReset
        }
        const json = (status: number, body: unknown): FakeServer.FakeReply => ({ status, json: body, headers: limits })
        const p = r.params
        switch (route) {
          case "apps": {
            const redirect = p.redirect_uris
            if (p.client_name === undefined || p.client_name === "") return error(422, "Validation failed: Application name can't be blank")
            if (redirect === undefined || !/^[a-z]+:\/\//.test(redirect)) return error(422, "Validation failed: Redirect URI must be an absolute URI.")
            const id = appId()
            const app = { name: p.client_name, client_id: `cid-${id}`, client_secret: `secret-${id}`, redirect_uris: [redirect], scopes: p.scopes ?? "read" }
            fake.apps.push(app)
            return { status: 200, json: { id, name: p.client_name, website: p.website ?? null, redirect_uri: redirect, redirect_uris: [redirect], client_id: app.client_id, client_secret: app.client_secret, vapid_key: "BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=" } }
          }
          case "authorize": {
            // The request's fields: the query of the GET, or the page's form posted back.
            const ask = (name: string) => (r.method === "POST" ? (p[name] ?? null) : r.query.get(name))
            const app = fake.apps.find((a) => a.client_id === ask("client_id"))
            const redirect = ask("redirect_uri") ?? ""
            if (app === undefined) return error(401, "invalid_client")
            if (!app.redirect_uris.includes(redirect)) return error(400, "invalid_redirect_uri")
            const requested = (ask("scope") ?? "read").split(" ")
            const allowed = app.scopes.split(" ")
            if (!requested.every((s) => allowed.includes(s))) return error(400, "invalid_scope")
            if (r.method === "GET" && fake.consentPage) {
              const hidden = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"]
                .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(ask(name) ?? "")}">`)
                .join("")
              const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization required</title></head><body>
<h1>Authorization required</h1><p><strong>${escapeHtml(app.name)}</strong> would like permission to access your account <strong>@${owner.username}</strong>.</p>
<p>${requested.map((s) => `<code>${escapeHtml(s)}</code>`).join(" ")}</p>
<form method="post" action="/oauth/authorize">${hidden}<button type="submit" name="decision" value="authorize">Authorize</button><button type="submit" name="decision" value="deny">Deny</button></form>
</body></html>`
              return { status: 200, raw: html, headers: { "content-type": "text/html; charset=utf-8" } } as FakeServer.FakeReply
            }
            const location = new URL(redirect)
            const state = ask("state")
            if (state !== null && state !== "") location.searchParams.set("state", state)
            if (fake.deny || (r.method === "POST" && p.decision !== "authorize")) {
              location.searchParams.set("error", "access_denied")
              location.searchParams.set("error_description", "The resource owner or authorization server denied the request.")
            } else {
              const challenge = ask("code_challenge")
              const code = `code-${codes.size + 1}`
              codes.set(code, { clientId: app.client_id, redirectUri: redirect, scope: requested.join(" "), challenge: challenge === null || challenge === "" ? undefined : challenge })
              location.searchParams.set("code", code)
            }
            return { status: 302, json: {}, headers: { location: location.toString() } }
          }
          case "token": {
            const app = fake.apps.find((a) => a.client_id === p.client_id && a.client_secret === p.client_secret)
            if (app === undefined) return error(401, "invalid_client")
            const code = codes.get(p.code ?? "")
            if (p.grant_type !== "authorization_code" || code === undefined || code.clientId !== app.client_id || code.redirectUri !== p.redirect_uri) {
              return { status: 400, json: { error: "invalid_grant", error_description: "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client." } }
            }
            if (code.challenge !== undefined && createHash("sha256").update(p.code_verifier ?? "").digest("base64url") !== code.challenge) {
              return { status: 400, json: { error: "invalid_grant", error_description: "code_verifier does not match" } }
            }
            codes.delete(p.code!)
            const token = `tok-${fake.tokens.size + 1}`
            fake.tokens.set(token, { accountId: owner.id, clientId: app.client_id, scope: code.scope, revoked: false })
            return { status: 200, json: { access_token: token, token_type: "Bearer", scope: code.scope, created_at: Math.floor(Date.now() / 1000) } }
          }
          case "revoke": {
            const app = fake.apps.find((a) => a.client_id === p.client_id && a.client_secret === p.client_secret)
            if (app === undefined) return { status: 403, json: { error: "unauthorized_client", error_description: "You are not authorized to revoke this token" } }
            const grant = fake.tokens.get(p.token ?? "")
            if (grant !== undefined && grant.clientId === app.client_id) grant.revoked = true
            return { status: 200, json: {} }
          }
          case "instance":
            return json(200, { domain: "127.0.0.1", title: "Fake Mastodon", version: "4.4.0", configuration: fake.configuration })
          default:
            break
        }
        const grant = bearer(r)
        if (grant === undefined) return error(401, "The access token is invalid")
        if (fake.rateLimitRemaining <= 0) return error(429, "Too many requests", limits)
        fake.rateLimitRemaining -= 1
        const me = accounts.find((a) => a.id === grant.accountId)!
        switch (route) {
          case "verify":
            return json(200, accountJson(me))
          case "upload": {
            if (fake.mediaUploadsRemaining <= 0) {
              return error(429, "Too many requests", { "x-ratelimit-limit": "30", "x-ratelimit-remaining": "0", "x-ratelimit-reset": fake.mediaRateLimitReset })
            }
            fake.mediaUploadsRemaining -= 1
            const { file, fields } = parseMultipart(r)
            if (file === undefined) return error(422, "Validation failed: File can't be blank")
            const cfg = fake.configuration.media_attachments
            if (!cfg.supported_mime_types.includes(file.mime)) return error(422, `Validation failed: File content type is invalid, File is invalid`)
            const description = fields.description === undefined || fields.description === "" ? null : fields.description
            // Rails counts a string's characters as code points.
            if (description !== null && [...description].length > cfg.description_limit) {
              return error(422, `Validation failed: Description is too long (maximum is ${cfg.description_limit} characters)`)
            }
            const kind = file.mime.startsWith("video/") ? "video" : "image"
            const m: Media = {
              id: mediaId(),
              kind,
              mime: file.mime,
              filename: file.filename,
              size: file.size,
              description,
              checksLeft: kind === "video" ? fake.processingChecks : 0
            }
            fake.media.set(m.id, m)
            return json(m.checksLeft > 0 ? 202 : 200, mediaJson(m))
          }
          case "media": {
            const m = fake.media.get(r.path.split("/").pop()!)
            if (m === undefined) return error(404, "Record not found")
            if (m.checksLeft > 0) {
              m.checksLeft -= 1
              return json(206, mediaJson({ ...m, checksLeft: 1 }))
            }
            return json(200, mediaJson(m))
          }
          case "status": {
            const key = r.headers["idempotency-key"]
            const seen = typeof key === "string" ? idempotency.get(`${me.id}:${key}`) : undefined
            if (seen !== undefined) return json(200, statusJson(fake.statuses.find((s) => s.id === seen)!))
            const form = new URLSearchParams(r.body)
            const text = form.get("status") ?? ""
            const spoiler = form.get("spoiler_text") ?? ""
            const mediaIds = form.getAll("media_ids[]")
            if (text === "" && mediaIds.length === 0) return error(422, "Validation failed: Text can't be blank")
            const cfg = fake.configuration.statuses
            if (countOf(text, cfg.characters_reserved_per_url) + countOf(spoiler, cfg.characters_reserved_per_url) > cfg.max_characters) {
              return error(422, `Validation failed: Text character limit of ${cfg.max_characters} exceeded`)
            }
            if (mediaIds.length > cfg.max_media_attachments) return error(422, `Cannot attach more than ${cfg.max_media_attachments} files`)
            const items = mediaIds.map((id) => fake.media.get(id))
            if (items.some((m) => m === undefined)) return error(422, "Validation failed: Media attachments is invalid")
            if (items.some((m) => m!.checksLeft > 0)) return error(422, "Cannot attach files that have not finished processing. Try again in a moment!")
            if (items.length > 1 && items.some((m) => m!.kind === "video")) return error(422, "Cannot attach a video to a post that already contains images")
            const visibility = form.get("visibility") ?? "public"
            if (!["public", "unlisted", "private", "direct"].includes(visibility)) return error(422, "Validation failed: Visibility is not included in the list")
            const inReplyTo = form.get("in_reply_to_id")
            if (inReplyTo !== null && !fake.statuses.some((s) => s.id === inReplyTo)) return error(404, "Record not found")
            const status: Status = {
              id: statusId(),
              accountId: me.id,
              text,
              spoilerText: spoiler,
              visibility,
              sensitive: form.get("sensitive") === "true",
              language: form.get("language"),
              mediaIds,
              inReplyToId: inReplyTo,
              createdAt: now()
            }
            fake.statuses.push(status)
            if (typeof key === "string") idempotency.set(`${me.id}:${key}`, status.id)
            return json(200, statusJson(status))
          }
          case "account_statuses": {
            const id = r.path.split("/")[4]!
            const limit = Math.min(40, Number(r.query.get("limit") ?? "20"))
            return json(200, fake.statusesOf(id).slice().reverse().slice(0, limit).map(statusJson))
          }
          case "context": {
            const id = r.path.split("/")[4]!
            if (!fake.statuses.some((s) => s.id === id)) return error(404, "Record not found")
            const below = (parent: string): Array<Status> =>
              fake.statuses.filter((s) => s.inReplyToId === parent).flatMap((s) => [s, ...below(s.id)])
            return json(200, { ancestors: [], descendants: below(id).map(statusJson) })
          }
          case "get_status": {
            const s = fake.statuses.find((x) => x.id === r.path.split("/")[4])
            return s === undefined ? error(404, "Record not found") : json(200, statusJson(s))
          }
          case "delete": {
            const index = fake.statuses.findIndex((x) => x.id === r.path.split("/")[4] && x.accountId === me.id)
            if (index < 0) return error(404, "Record not found")
            const [s] = fake.statuses.splice(index, 1)
            return json(200, { ...statusJson(s!), text: s!.text })
          }
          default:
            return error(404, "Record not found")
        }
      }
    }

    const server = yield* FakeServer.start(routes)
    fake = Object.assign(server, {
      owner,
      stranger,
      apps: [],
      tokens: new Map([
        ["owner-token", { accountId: owner.id, clientId: "preset", scope: "read:accounts read:statuses write:statuses write:media", revoked: false }],
        ["stranger-token", { accountId: stranger.id, clientId: "preset", scope: "read write", revoked: false }]
      ]),
      statuses: [],
      media: new Map(),
      configuration: {
        statuses: { max_characters: 500, max_media_attachments: 4, characters_reserved_per_url: 23 },
        media_attachments: {
          supported_mime_types: ["image/jpeg", "image/png", "image/gif", "image/webp", "video/mp4", "video/quicktime", "video/webm"],
          image_size_limit: 16_777_216,
          video_size_limit: 103_809_024,
          image_matrix_limit: 33_177_600,
          video_matrix_limit: 8_294_400,
          description_limit: 1_500
        }
      },
      processingChecks: 2,
      rateLimitRemaining: 300,
      rateLimitReset: "2026-12-05T09:05:00.000Z",
      mediaUploadsRemaining: 30,
      mediaRateLimitReset: "2026-12-05T09:30:00.000Z",
      deny: false,
      consentPage: false,
      ownerToken: "owner-token",
      strangerToken: "stranger-token",
      addStatus: (person: Person, text: string, inReplyToId: string | null) => {
        const status: Status = { id: statusId(), accountId: person.id, text, spoilerText: "", visibility: "public", sensitive: false, language: null, mediaIds: [], inReplyToId, createdAt: now() }
        fake.statuses.push(status)
        return status
      },
      statusesOf: (accountId: string) => fake.statuses.filter((s) => s.accountId === accountId)
    }) as MastodonFake
    return fake
  })
