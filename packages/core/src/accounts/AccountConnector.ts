/**
 * The `AccountConnector` service: everything Postwire says to a platform's OAuth, token and
 * identity endpoints to connect an account, keep its token alive and let it go.
 *
 * One connector serves the whole server and routes by platform and by the sandbox flag: a
 * sandbox connect runs against the built-in simulated platform (a simulated consent page on
 * Postwire's own address, no platform app needed); every other connect against the platform's
 * real authorization server, with the app credentials of the server's configuration.
 *
 * Credentials cross this interface as the JSON string to seal (the same opaque string the
 * `PlatformClient` receives opened): the engine never reads tokens, and no failure, log or
 * span carries one.
 *
 * Times are epoch milliseconds, computed from the platform's own answer (`expires_in`,
 * `refresh_expires_in`) and Effect's `Clock`, never from a constant.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AccountConnector } from "@postwire/core"
 *
 * const startConnect = Effect.gen(function* () {
 *   const connector = yield* AccountConnector
 *   const missing = connector.configured("shortvideo", false)
 *   if (missing.length > 0) return { missing }
 *   const url = yield* connector.authorizationUrl({
 *     platform: "shortvideo",
 *     sandbox: false,
 *     state: "st_8f2…",
 *     redirectUri: "https://postwire.example.com/connect/callback/shortvideo",
 *     codeVerifier: "a-43-to-128-character-random-string…"
 *   })
 *   return { url }
 * })
 * ```
 *
 * @since 0.2.0
 */
import { Context, Data, type Effect } from "effect"
import type { ErrorCode, ErrorDetails, Platform } from "@postwire/domain"
import type { CreatorInfo } from "../platform/PlatformClient.ts"

/** Where a connect starts: what the platform's authorization page needs. */
export interface AuthorizationRequest {
  readonly platform: Platform
  /** `true`: the simulated platform's consent page on Postwire's own address. */
  readonly sandbox: boolean
  /** An unguessable value bound to the connect link; the platform hands it back unchanged. */
  readonly state: string
  /**
   * Postwire's callback address for this platform, exactly as registered with the platform app
   * (`{public_url}/connect/callback/{platform}`); `exchange` must be given the same one.
   */
  readonly redirectUri: string
  /**
   * A PKCE code verifier (43 to 128 characters of `A-Z a-z 0-9 - . _ ~`), kept with the link and
   * given again to `exchange`. Platforms that take PKCE (TikTok, the sandbox) receive its
   * challenge; the others ignore it, so the service may always make one.
   */
  readonly codeVerifier: string
}

/** The answer of the platform's callback, traded for tokens and identities. */
export interface CodeExchange {
  readonly platform: Platform
  readonly sandbox: boolean
  /** The `code` query parameter of the callback, as received. */
  readonly code: string
  /** The same `redirectUri` the authorization address was made with. */
  readonly redirectUri: string
  /** The same `codeVerifier` the authorization address was made with. */
  readonly codeVerifier: string
  /**
   * What the platform's `begin` answered with its `Redirect` (`memo`), kept sealed with the
   * connect session and given back here unchanged (a Mastodon server's address and the app
   * registered on it); absent when `begin` gave none or the platform has no `begin`.
   */
  readonly memo?: string | undefined
  /**
   * The callback's `iss` query parameter (RFC 9207: the authorization server that answered), as
   * received; absent when the platform sent none. A platform whose OAuth profile requires it
   * (atproto) refuses an exchange whose issuer is missing or not the server it sent the person to.
   */
  readonly issuer?: string | undefined
}

/**
 * One field the hosted connect page asks for before anything else (a plugin's `connect.form`):
 * a Bluesky handle and app password, a Mastodon server's address.
 *
 * - `name`: the key of `fields` in `begin` (and of the JSON body's `fields`), 1 to 32 of
 *   `a-z 0-9 _`, starting with a letter.
 * - `kind`: `text`; `password` (never shown again, never logged, not trimmed); `url` (an
 *   http(s) address; a bare host such as `mastodon.social` is read as `https://mastodon.social`).
 * - `required`: default `true`; an optional field left empty is absent from `fields`.
 */
export interface ConnectFormField {
  readonly name: string
  /** The label people read (the platform's own words: "App password"). */
  readonly label: string
  readonly kind: "text" | "password" | "url"
  readonly placeholder?: string | undefined
  /** A line under the field (where to make an app password). */
  readonly help?: string | undefined
  readonly required?: boolean | undefined
  /** The longest value accepted; default 512. */
  readonly maxLength?: number | undefined
}

/**
 * The words of a platform's account picker in one language (a plugin's `connect.chooser`), for a
 * platform whose one consent may connect several accounts (`capabilities.choosesAccounts`).
 */
export interface ChooserWords {
  /** On the link's page: "You will choose which of your Facebook Pages to connect." */
  readonly hint: string
  /** The picker's heading: "Choose the Pages to connect". */
  readonly title: string
  readonly intro: string
  /** The picker's submit button: "Connect the chosen Pages". */
  readonly button: string
  /** When none was chosen: "Choose at least one Page." */
  readonly atLeastOne: string
  /** The label of the simulated consent page's `n`th handle (from 1): "Page 1 handle". */
  readonly sandboxHandle: (n: number) => string
}

/** What the connect flow asks of a platform beyond OAuth (its plugin's declarations). */
export interface ConnectTraits {
  /** One consent may connect several accounts, and the person chooses which (Facebook Pages). */
  readonly choosesAccounts: boolean
  /** The picker's words in English and Indonesian; absent: generic words naming the platform. */
  readonly chooser?: { readonly en: ChooserWords; readonly id: ChooserWords } | undefined
  /** The platform signs deauthorization callbacks (Meta's `signed_request`) that `verifyDeauthorization` checks. */
  readonly signsDeauthorization: boolean
}

/** Where a connect with a `begin` starts: the authorization request and what the person typed. */
export interface BeginRequest extends AuthorizationRequest {
  /** The form's values by field name, checked against the form (required, length, url). */
  readonly fields: Readonly<Record<string, string>>
}

/** What `begin` answers: go to the platform, or the identities at once. */
export type BeginAnswer =
  | {
      readonly _tag: "Redirect"
      /** The platform's authorization page (with `state`). */
      readonly url: string
      /** Kept sealed with the connect session and given back to `exchange` as `memo`. */
      readonly memo?: string | undefined
    }
  | {
      /** No redirect: the identities are known now (an app password traded for a session). */
      readonly _tag: "Connected"
      readonly identities: ReadonlyArray<ConnectedIdentity>
    }

/**
 * One account the person can connect. A Facebook consent yields one per Page the person chose
 * (each with its own Page token); the other platforms yield exactly one.
 */
export interface ConnectedIdentity {
  readonly platform: Platform
  /** The platform's id of the account: TikTok `open_id`, Instagram `user_id`, Page id, Threads user id. */
  readonly platformAccountId: string
  /** The public handle (`@name` without the `@`); for a Facebook Page, its name. */
  readonly handle: string
  /** The name people see, when the platform gives one. */
  readonly displayName: string | null
  /** The profile picture's address, when the platform gives one (platform addresses may expire). */
  readonly avatarUrl: string | null
  /** The credentials JSON to seal and store as the account's `credentials`. */
  readonly credentials: string
  /** The permissions the person granted, in the platform's words (`video.publish`, `pages_manage_posts`). */
  readonly scopes: ReadonlyArray<string>
  /** When the access token expires; `null` when it does not (a Page token from a long-lived user token). */
  readonly accessTokenExpiresAt: number | null
  /**
   * When the person must reconnect at the latest: the refresh token's expiry (TikTok) or, for
   * tokens that refresh themselves (Instagram, Threads), `null`.
   */
  readonly refreshTokenExpiresAt: number | null
  /** TikTok only: what the creator may post now (privacy options, longest video). */
  readonly creatorInfo: CreatorInfo | null
  /**
   * The platform's id of the person who consented, unsealed so the service can find accounts by
   * it: Meta's deauthorization callback names it as `user_id` (the app-scoped user id: Facebook
   * user, Instagram `id`, Threads user), TikTok its `open_id`. Accounts that share it came from
   * one consent (a person's Facebook Pages): revoking one revokes the consent of all, so revoke
   * only when the last of them is disconnected.
   */
  readonly grantId: string
}

/** Which account's token to refresh, revoke or read with. */
export interface CredentialsRequest {
  readonly platform: Platform
  readonly sandbox: boolean
  /** The account's credentials, opened (the JSON `exchange` or `refresh` returned). */
  readonly credentials: string
}

/** What a refresh did. */
export type TokenRefresh =
  | {
      readonly _tag: "Refreshed"
      /** The new credentials to seal; they replace the old ones (TikTok's refresh token rotates). */
      readonly credentials: string
      readonly accessTokenExpiresAt: number | null
      readonly refreshTokenExpiresAt: number | null
      /** The scopes the platform reports with the new token; `null` when it does not say. */
      readonly scopes: ReadonlyArray<string> | null
    }
  | {
      /** The token does not expire (Facebook Page tokens) or the platform has no refresh: keep it. */
      readonly _tag: "NothingToRefresh"
    }

/** What a revoke did. */
export type TokenRevocation =
  | {
      /** The platform confirmed the token (and the app's access) is gone. */
      readonly _tag: "Revoked"
    }
  | {
      /** The platform offers no revoke API (Instagram Login, Threads): the person removes the app there. */
      readonly _tag: "Unsupported"
    }

/** The content of a valid Meta signed request (deauthorization and data-deletion callbacks). */
export interface MetaSignedRequestPayload {
  /** The app-scoped id of the person who removed the app. */
  readonly userId: string
  /** When Meta issued the request, epoch milliseconds; `null` when absent. */
  readonly issuedAt: number | null
  /** The whole decoded payload, for anything else Meta sends. */
  readonly payload: Readonly<Record<string, unknown>>
}

/**
 * A connect, refresh, revoke or identity call that did not succeed, normalized.
 *
 * - `code` is a catalog code: `connect_refused` (the person declined), `connect_failed` (the
 *   platform refused the code or the app: expired or reused code, redirect mismatch, bad app
 *   credentials), `platform_not_configured` (app credentials missing), `token_expired` (a
 *   refresh the platform refused: the person must reconnect), `permission_missing`,
 *   `platform_unavailable` (5xx, throttling, timeout: try again later).
 * - `platformCode` is the platform's own code for support (`invalid_grant`, `190/463`, `timeout`).
 * - `needsReconnect`: only the person can fix it by connecting again.
 * - `retryable`: the same call may succeed later unchanged.
 *
 * Never carries a token, a code or an app secret.
 */
export class ConnectFailure extends Data.TaggedError("ConnectFailure")<{
  readonly code: ErrorCode
  readonly platformCode: string
  /** Values for the message's placeholders (`settings` for `platform_not_configured`, a `detail`). */
  readonly details?: ErrorDetails | undefined
  readonly needsReconnect: boolean
  readonly retryable: boolean
  /**
   * The platform's rate limit refused the call and said when calls are accepted again (epoch
   * milliseconds; Meta's Business Use Case throttles): a deferred refresh is tried no earlier.
   */
  readonly retryAt?: number | undefined
}> {}

/**
 * How a platform's tokens are kept alive (its plugin's `tokenRenewal`): a token is refreshed
 * halfway through its lifetime, never before `minimumAgeMs` after it was issued (Meta refreshes
 * only tokens at least 24 hours old); with `readsCreatorInfo`, the creator's posting options are
 * read again with each new token.
 */
export interface RenewalPolicy {
  readonly minimumAgeMs?: number | undefined
  readonly readsCreatorInfo?: boolean | undefined
}

/**
 * Speaks to the platforms' OAuth, token and identity endpoints for the service's connect,
 * reconnect, refresh and disconnect use-cases.
 */
export class AccountConnector extends Context.Service<
  AccountConnector,
  {
    /**
     * The configuration settings a platform still needs before people can connect it, by their
     * environment names (`["POSTWIRE_TIKTOK_CLIENT_KEY"]`); empty when it is ready. A sandbox
     * connect needs nothing.
     */
    readonly configured: (platform: Platform, sandbox: boolean) => ReadonlyArray<string>
    /**
     * The address to send the person to: the platform's authorization page with the app's
     * scopes, `state`, and PKCE where the platform takes it; for a sandbox connect,
     * `{public_url}/connect/sandbox/authorize?…` (served by the service, see `SandboxConsent`).
     * Fails with `platform_not_configured` when settings are missing.
     */
    readonly authorizationUrl: (request: AuthorizationRequest) => Effect.Effect<string, ConnectFailure>
    /**
     * The fields the hosted connect page asks for before the connect starts (none for a sandbox
     * connect: the simulated consent page asks for a handle). Optional: none.
     */
    readonly form?: ((platform: Platform, sandbox: boolean) => ReadonlyArray<ConnectFormField>) | undefined
    /**
     * Starts a connect with what the person typed: a redirect to the platform (with a `memo`
     * for `exchange`), or the identities at once. Platforms without a `begin` answer the
     * `authorizationUrl` redirect. Optional: `authorizationUrl` is used.
     */
    readonly begin?: ((request: BeginRequest) => Effect.Effect<BeginAnswer, ConnectFailure>) | undefined
    /**
     * What the connect flow asks of `platform`: whether the person chooses among several
     * accounts (and the picker's words), whether it signs deauthorization callbacks. Optional:
     * neither.
     */
    readonly traits?: ((platform: Platform) => ConnectTraits) | undefined
    /**
     * A public document the platform's connect side serves at
     * `GET /connect/documents/{platform}/{name}` (atproto OAuth's client metadata, fetched by the
     * account's server from the client id address): its JSON, or `undefined` when the platform
     * has no such document. `publicUrl` is the server's public base address. Optional: none.
     */
    readonly document?: ((platform: Platform, name: string, publicUrl: string) => unknown) | undefined
    /**
     * Trades the callback's code for tokens, upgrades to the long-lived token where the platform
     * has one, and reads the identity: one entry, or one per Facebook Page the person chose
     * (none when they chose none: the service says so).
     */
    readonly exchange: (request: CodeExchange) => Effect.Effect<ReadonlyArray<ConnectedIdentity>, ConnectFailure>
    /**
     * Renews an account's token before it expires: schedule it from `accessTokenExpiresAt` (Meta's
     * 60-day tokens: at least 24 h after issue, well before expiry) and, for TikTok, well before
     * `refreshTokenExpiresAt` too (each refresh gives a new refresh token with a new lifetime).
     * A refusal (`invalid_grant`, OAuthException
     * 190, a token past its lifetime) fails with `needsReconnect: true`; a 5xx or timeout with
     * `retryable: true`.
     */
    readonly refresh: (request: CredentialsRequest) => Effect.Effect<TokenRefresh, ConnectFailure>
    /**
     * Revokes the token at the platform where it has an API for that (TikTok, Facebook). A token
     * the platform already considers dead counts as revoked.
     */
    readonly revoke: (request: CredentialsRequest) => Effect.Effect<TokenRevocation, ConnectFailure>
    /**
     * TikTok only: the creator's current posting options, for the account detail. It uses the
     * access token as it is: an expired or refused one fails with `token_expired` and
     * `needsReconnect: false` (refresh, then ask again; the refresh says whether the person must
     * reconnect).
     */
    readonly creatorInfo: (request: CredentialsRequest) => Effect.Effect<CreatorInfo, ConnectFailure>
    /**
     * Verifies a Meta deauthorization or data-deletion callback's `signed_request` with the app
     * secret of `platform` (photo: Instagram app, pages: Meta app, textpost: Threads app), in
     * constant time. Fails with `invalid_request` (`platformCode` `bad_signature`,
     * `unsupported_algorithm` or `malformed`) or `platform_not_configured`.
     */
    /**
     * How `platform`'s tokens are renewed. Optional: without it, tokens are refreshed halfway
     * through their lifetime and no creator options are read.
     */
    readonly renewal?: ((platform: Platform) => RenewalPolicy) | undefined
    /**
     * Whether one consent of `platform` may yield several accounts that the person chooses from
     * before they are connected (its plugin's `capabilities.choosesAccounts`: Facebook Pages, a
     * LinkedIn member and their company pages). Optional: without it, only `pages` does.
     */
    readonly choosesAccounts?: ((platform: Platform) => boolean) | undefined
    readonly verifyDeauthorization: (
      platform: Platform,
      signedRequest: string
    ) => Effect.Effect<MetaSignedRequestPayload, ConnectFailure>
  }
>()("postwire/AccountConnector") {}
