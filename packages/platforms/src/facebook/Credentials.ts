/**
 * Facebook Pages' account credentials: the JSON stored (sealed) in `account.credentials`.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as Credentials from "../Credentials.ts"

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

const stored = Credentials.codec(PagesCredentials)
/** Serializes Facebook Pages credentials for `account.credentials`. */
export const encode = stored.encode
/** Reads an account's Facebook Pages credentials; missing or unreadable ones ask for a reconnect. */
export const decode = stored.decode
