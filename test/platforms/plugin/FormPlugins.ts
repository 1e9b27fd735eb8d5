/**
 * Two platform plugins whose connect starts with the hosted page's form, written against
 * `@postwire/server`'s types only, connecting to `FormService`:
 *
 * - `notes`: a handle and an app password, traded for a session at once (`begin` answers
 *   `Connected`, no redirect);
 * - `guild`: the person types their server's address; `begin` registers an app there, then
 *   redirects to that server's OAuth page with the app and the server kept in the `memo`, which
 *   `exchange` gets back to trade the code with the same app.
 */
import { ConnectFailure, type ConnectedIdentity, type PlatformPlugin, TargetRules } from "@postwire/server"
import { ErrorDetail } from "@postwire/domain"
import { Effect, Redacted } from "effect"

const rules = (displayName: string): PlatformPlugin["rules"] => ({
  displayName,
  captionMax: 500,
  dailyQuota: 20,
  mediaMin: 0,
  mediaMax: 4,
  comments: { read: false, reply: false, hide: false, delete: false, push: false },
  checkMedia: (target, media) =>
    TargetRules.countFits(target.rules, media.length)
      ? undefined
      : TargetRules.invalid(target.platform, "textpost_items_max", ErrorDetail.reason("items_max", { max: target.rules.mediaMax }))
})

// Publishing is not what these tests look at.
const publish: PlatformPlugin["publish"] = {
  defaults: {},
  make: () => ({ publish: () => Effect.succeed({ _tag: "Published", platformPostId: "1", permalink: null, state: null }) })
}

const failure = (code: ConnectFailure["code"], platformCode: string, details?: ConnectFailure["details"]) =>
  new ConnectFailure({ code, platformCode, details, needsReconnect: false, retryable: code === "platform_unavailable" })

interface Answer {
  readonly status: number
  readonly json: Record<string, unknown>
}

const send = (url: string, init: RequestInit): Effect.Effect<Answer, ConnectFailure> =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, init)
      const text = await response.text()
      return { status: response.status, json: (text === "" ? {} : JSON.parse(text)) as Record<string, unknown> }
    },
    catch: () => failure("platform_unavailable", "unreachable")
  })

const noRefresh = {
  refresh: () => Effect.succeed({ _tag: "NothingToRefresh" } as const),
  revoke: () => Effect.succeed({ _tag: "Revoked" } as const)
}

/** Handle and app password, no redirect. */
export const notesPlugin = (baseUrl: string): PlatformPlugin<Record<string, never>, { readonly baseUrl: string }> => ({
  name: "notes",
  displayName: "Notes",
  rules: rules("Notes"),
  publish,
  connect: {
    defaults: { baseUrl },
    form: [
      { name: "handle", label: "Handle", kind: "text", placeholder: "you.example", help: "Your handle, without the @." },
      {
        name: "password",
        label: "App password",
        kind: "password",
        help: "Make one under Settings, App passwords: not your account's password."
      }
    ],
    make: (settings) => ({
      missing: [],
      // Never asked: `begin` answers for this platform.
      authorizationUrl: () => `${settings.baseUrl}/no-redirect`,
      begin: (request) =>
        Effect.gen(function* () {
          const answer = yield* send(`${settings.baseUrl}/session`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ identifier: request.fields.handle, password: request.fields.password })
          })
          if (answer.status === 401) return yield* Effect.fail(failure("connect_failed", String(answer.json.error)))
          if (answer.status !== 200) return yield* Effect.fail(failure("platform_unavailable", `http_${answer.status}`))
          const identity: ConnectedIdentity = {
            platform: "notes",
            platformAccountId: String(answer.json.did),
            handle: String(answer.json.handle),
            displayName: null,
            avatarUrl: null,
            credentials: JSON.stringify({ accessJwt: answer.json.accessJwt }),
            scopes: [],
            accessTokenExpiresAt: null,
            refreshTokenExpiresAt: null,
            creatorInfo: null,
            grantId: String(answer.json.did)
          }
          return { _tag: "Connected", identities: [identity] } as const
        }),
      exchange: () => Effect.fail(failure("connect_failed", "no_redirect")),
      ...noRefresh
    })
  }
})

/** What `guild`'s `begin` keeps for `exchange`: the server and the app registered on it. */
interface GuildMemo {
  readonly server: string
  readonly clientId: string
  readonly clientSecret: string
}

/** The person's server address first, an app registered on it, then OAuth there. */
export const guildPlugin = (): PlatformPlugin<Record<string, never>, Record<string, never>> => ({
  name: "guild",
  displayName: "Guild",
  rules: rules("Guild"),
  publish,
  connect: {
    defaults: {},
    form: [{ name: "server", label: "Your server's address", kind: "url", placeholder: "guild.example" }],
    make: () => ({
      missing: [],
      authorizationUrl: () => "",
      begin: (request) =>
        Effect.gen(function* () {
          const server = request.fields.server!
          const app = yield* send(`${server}/apps`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ client_name: "Postwire", redirect_uris: request.redirectUri, scopes: "write" }).toString()
          }).pipe(
            // The address the person typed answers nothing: say so at the field.
            Effect.mapError(() =>
              failure("invalid_request", "server_unreachable", { field: "fields.server", detail: ErrorDetail.reason("url_unreachable") })
            )
          )
          if (app.status !== 200) {
            return yield* Effect.fail(
              failure("invalid_request", `apps_http_${app.status}`, {
                field: "fields.server",
                detail: ErrorDetail.reason("url_answered", { status: app.status })
              })
            )
          }
          const memo: GuildMemo = { server, clientId: String(app.json.client_id), clientSecret: String(app.json.client_secret) }
          const url = new URL(`${server}/oauth/authorize`)
          url.search = new URLSearchParams({
            client_id: memo.clientId,
            redirect_uri: request.redirectUri,
            response_type: "code",
            scope: "write",
            state: request.state
          }).toString()
          return { _tag: "Redirect", url: url.toString(), memo: JSON.stringify(memo) } as const
        }),
      exchange: (request) =>
        Effect.gen(function* () {
          if (request.memo === undefined) return yield* Effect.fail(failure("connect_failed", "no_memo"))
          const memo = JSON.parse(request.memo) as GuildMemo
          const token = yield* send(`${memo.server}/oauth/token`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              grant_type: "authorization_code",
              code: request.code,
              client_id: memo.clientId,
              client_secret: memo.clientSecret,
              redirect_uri: request.redirectUri
            }).toString()
          })
          if (token.status !== 200) return yield* Effect.fail(failure("connect_failed", String(token.json.error)))
          const me = yield* send(`${memo.server}/me`, { headers: { authorization: `Bearer ${token.json.access_token}` } })
          if (me.status !== 200) return yield* Effect.fail(failure("connect_failed", `me_http_${me.status}`))
          const id = `${new URL(memo.server).host}/${me.json.id}`
          return [
            {
              platform: "guild",
              platformAccountId: id,
              handle: String(me.json.username),
              displayName: String(me.json.display_name),
              avatarUrl: null,
              credentials: JSON.stringify({ server: memo.server, token: token.json.access_token }),
              scopes: ["write"],
              accessTokenExpiresAt: null,
              refreshTokenExpiresAt: null,
              creatorInfo: null,
              grantId: id
            }
          ]
        }),
      ...noRefresh
    })
  }
})

/** The secret `circles` signs its deauthorization callbacks with. */
export const circlesSecret = "circles-app-secret"

/**
 * One consent, several accounts the person chooses from (`capabilities.choosesAccounts`, with
 * the generic picker words), connected by `begin` without a form or a redirect; removing the
 * app on the platform's side calls the signed deauthorization callback.
 */
export const circlesPlugin = (): PlatformPlugin<Record<string, never>, Record<string, never>> => ({
  name: "circles",
  displayName: "Circles",
  rules: rules("Circles"),
  publish,
  capabilities: { choosesAccounts: true },
  connect: {
    defaults: {},
    deauthorization: () => ({ secret: Redacted.make(circlesSecret), name: "CIRCLES_APP_SECRET" }),
    make: () => ({
      missing: [],
      authorizationUrl: () => "",
      begin: () =>
        Effect.succeed({
          _tag: "Connected",
          identities: ["runners", "readers"].map(
            (handle): ConnectedIdentity => ({
              platform: "circles",
              platformAccountId: `c-${handle}`,
              handle,
              displayName: `The ${handle}`,
              avatarUrl: null,
              credentials: JSON.stringify({ circle: handle }),
              scopes: [],
              accessTokenExpiresAt: null,
              refreshTokenExpiresAt: null,
              creatorInfo: null,
              grantId: "person-7"
            })
          )
        } as const),
      exchange: () => Effect.fail(failure("connect_failed", "no_redirect")),
      ...noRefresh
    })
  }
})
