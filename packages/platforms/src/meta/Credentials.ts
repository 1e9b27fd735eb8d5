/**
 * The account credentials of the Meta platforms that keep one long-lived token (Instagram through
 * Instagram Login, Threads): the JSON stored (sealed) in `account.credentials`.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as Credentials from "../Credentials.ts"

/** A Meta long-lived token (about 60 days), refreshable while valid and at least 24 h old. */
export const LongLivedToken = Schema.Struct({
  access_token: Schema.String,
  expires_at: Schema.optionalKey(Schema.Number),
  /** When the token was issued or last refreshed: Meta refreshes only tokens at least 24 h old. */
  issued_at: Schema.optionalKey(Schema.Number),
  /** The account's user id (Instagram professional account id, Threads user id). */
  user_id: Schema.optionalKey(Schema.String),
  /** The permissions granted with the token. */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})
/** A Meta long-lived token's credentials. */
export type LongLivedToken = typeof LongLivedToken.Type

const stored = Credentials.codec(LongLivedToken)
/** Serializes a long-lived token's credentials for `account.credentials`. */
export const encode = stored.encode
/** Reads an account's long-lived token credentials; missing or unreadable ones ask for a reconnect. */
export const decode = stored.decode
