/**
 * The platform credentials of an account: the JSON stored (encrypted by the server) in
 * `account.credentials`. The engine treats it as an opaque string; the server decrypts it
 * before handing the account to the adapters, and encrypts what an adapter returns as a
 * `credentials` update (tokens rotate).
 *
 * Times are epoch milliseconds.
 *
 * @example
 * ```ts
 * import { Credentials } from "@postwire/platforms"
 *
 * const stored = Credentials.encode("shortvideo", {
 *   access_token: "act.1",
 *   refresh_token: "rft.1",
 *   expires_at: Date.now() + 2 * 60 * 60 * 1000
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { PlatformFailure } from "@postwire/core"
import { failure } from "./internal/Wire.ts"

/** TikTok: a 2-hour access token and a rotating 180-day refresh token. */
export const ShortVideoCredentials = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  /** When the access token expires; refreshed before use when past. */
  expires_at: Schema.optionalKey(Schema.Number),
  /** When the refresh token expires; after that the person must reconnect. */
  refresh_expires_at: Schema.optionalKey(Schema.Number),
  /** The creator's open_id, for support. */
  open_id: Schema.optionalKey(Schema.String),
  /** The scopes the creator granted (`video.publish`, …), as the token answer listed them. */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})
/** TikTok credentials. */
export type ShortVideoCredentials = typeof ShortVideoCredentials.Type

/** A Meta long-lived token (about 60 days), refreshable while valid and at least 24 h old. */
const LongLivedToken = Schema.Struct({
  access_token: Schema.String,
  expires_at: Schema.optionalKey(Schema.Number),
  /** When the token was issued or last refreshed: Meta refreshes only tokens at least 24 h old. */
  issued_at: Schema.optionalKey(Schema.Number),
  /** The account's user id (Instagram professional account id, Threads user id). */
  user_id: Schema.optionalKey(Schema.String),
  /** The permissions granted with the token. */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})

/** Instagram (Instagram Login): a long-lived user token. */
export const PhotoCredentials = LongLivedToken
/** Instagram credentials. */
export type PhotoCredentials = typeof PhotoCredentials.Type

/**
 * Facebook Pages: the Page access token, and optionally the long-lived user token it was derived
 * from, used to derive a new Page token when the old one is invalidated.
 */
export const PagesCredentials = Schema.Struct({
  page_access_token: Schema.String,
  user_access_token: Schema.optionalKey(Schema.String),
  /** The app-scoped id of the person whose consent gave the tokens (revoke goes to their permissions). */
  user_id: Schema.optionalKey(Schema.String),
  /** When the long-lived user token expires; the Page token itself does not. */
  user_expires_at: Schema.optionalKey(Schema.Number),
  /** The permissions the person granted. */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})
/** Facebook Pages credentials. */
export type PagesCredentials = typeof PagesCredentials.Type

/** Threads: a long-lived token. */
export const TextpostCredentials = LongLivedToken
/** Threads credentials. */
export type TextpostCredentials = typeof TextpostCredentials.Type

/** The credentials schema of each platform. */
export const schemas = {
  shortvideo: ShortVideoCredentials,
  photo: PhotoCredentials,
  pages: PagesCredentials,
  textpost: TextpostCredentials
} as const

/** The credentials type of a platform. */
export type CredentialsOf<P extends keyof typeof schemas> = (typeof schemas)[P]["Type"]

/** Serializes credentials to the JSON string stored in `account.credentials`. */
export const encode = <P extends keyof typeof schemas>(_platform: P, credentials: CredentialsOf<P>): string =>
  JSON.stringify(credentials)

/**
 * Reads an account's credentials. Missing or unreadable credentials can only be fixed by
 * connecting the account again: `token_expired` with `needsReconnect`.
 */
export const decode = <P extends keyof typeof schemas>(
  platform: P,
  json: string | null
): Effect.Effect<CredentialsOf<P>, PlatformFailure> => {
  if (json === null) return Effect.fail(failure("token_expired", "credentials_missing", { needsReconnect: true }))
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    return Effect.fail(invalid())
  }
  return (decoders[platform] as (input: unknown) => Effect.Effect<CredentialsOf<P>, unknown>)(parsed).pipe(
    Effect.mapError(invalid)
  )
}

const invalid = () => failure("token_expired", "credentials_invalid", { needsReconnect: true })

/** The decoder of each platform's credentials, made once. */
const decoders = {
  shortvideo: Schema.decodeUnknownEffect(ShortVideoCredentials),
  photo: Schema.decodeUnknownEffect(PhotoCredentials),
  pages: Schema.decodeUnknownEffect(PagesCredentials),
  textpost: Schema.decodeUnknownEffect(TextpostCredentials)
} as const
