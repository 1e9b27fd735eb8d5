/**
 * YouTube's account credentials: the JSON stored (sealed) in `account.credentials`.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as Credentials from "../Credentials.ts"

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

const stored = Credentials.codec(VideoCredentials)
/** Serializes YouTube credentials for `account.credentials`. */
export const encode = stored.encode
/** Reads an account's YouTube credentials; missing or unreadable ones ask for a reconnect. */
export const decode = stored.decode
