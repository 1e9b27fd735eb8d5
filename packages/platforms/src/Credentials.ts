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
import type { BuiltinPlatform } from "@postwire/domain"
import * as FacebookCredentials from "./facebook/Credentials.ts"
import * as FediverseCredentials from "./fediverse/FediverseCredentials.ts"
import { AtprotoCredentials } from "./atproto/Xrpc.ts"
import { failure } from "./internal/Wire.ts"
import * as MetaCredentials from "./meta/Credentials.ts"
import * as TikTokCredentials from "./tiktok/Credentials.ts"
import { ProfessionalCredentials } from "./linkedin/LinkedInCredentials.ts"

/** TikTok: a 2-hour access token and a rotating 180-day refresh token (`tiktok/Credentials.ts`). */
export const ShortVideoCredentials = TikTokCredentials.ShortVideoCredentials
/** TikTok credentials. */
export type ShortVideoCredentials = TikTokCredentials.ShortVideoCredentials

/** Instagram (Instagram Login): a long-lived user token (`meta/Credentials.ts`). */
export const PhotoCredentials = MetaCredentials.LongLivedToken
/** Instagram credentials. */
export type PhotoCredentials = MetaCredentials.LongLivedToken

/** Facebook Pages: the Page token and the user token it came from (`facebook/Credentials.ts`). */
export const PagesCredentials = FacebookCredentials.PagesCredentials
/** Facebook Pages credentials. */
export type PagesCredentials = FacebookCredentials.PagesCredentials

/** Threads: a long-lived token (`meta/Credentials.ts`). */
export const TextpostCredentials = MetaCredentials.LongLivedToken
/** Threads credentials. */
export type TextpostCredentials = MetaCredentials.LongLivedToken

/**
 * YouTube (Google OAuth): a 1-hour access token and a long-lived refresh token (offline access),
 * the channel chosen and its uploads playlist (where a lost upload is looked for).
 */
export const VideoCredentials = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  /** When the access token expires; refreshed before use when past. */
  expires_at: Schema.optionalKey(Schema.Number),
  /** The channel's id (`UC…`). */
  channel_id: Schema.String,
  /** The channel's uploads playlist (`contentDetails.relatedPlaylists.uploads`). */
  uploads_playlist_id: Schema.optionalKey(Schema.String),
  /** The scopes granted. */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})
/** YouTube credentials. */
export type VideoCredentials = typeof VideoCredentials.Type

/** The credentials schema of each built-in platform, as each platform's folder declares it. */
export const schemas = {
  ...TikTokCredentials.schemas,
  ...MetaCredentials.schemas,
  ...FacebookCredentials.schemas,
  fediverse: FediverseCredentials.FediverseCredentials,
  professional: ProfessionalCredentials,
  video: VideoCredentials,
  atproto: AtprotoCredentials
} as const satisfies Record<BuiltinPlatform, Schema.Top>

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
const decoders = Object.fromEntries(
  Object.entries(schemas).map(([platform, schema]) => [platform, Schema.decodeUnknownEffect(schema as Schema.Top)])
) as Record<BuiltinPlatform, (input: unknown) => Effect.Effect<unknown, unknown>>
