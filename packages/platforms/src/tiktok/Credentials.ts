/**
 * TikTok's account credentials: the JSON stored (sealed) in `account.credentials`.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as Credentials from "../Credentials.ts"

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

const stored = Credentials.codec(ShortVideoCredentials)
/** Serializes TikTok credentials for `account.credentials`. */
export const encode = stored.encode
/** Reads an account's TikTok credentials; missing or unreadable ones ask for a reconnect. */
export const decode = stored.decode
