/**
 * A LinkedIn account's credentials: the member's access token (60 days), the refresh token when
 * the app has programmatic refresh (365 days, not renewed by a refresh), and the member who
 * consented. A company page's account holds its administrator's token: LinkedIn acts for a page
 * through a member (https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens).
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as Credentials from "../Credentials.ts"

/** The stored JSON. Times are epoch milliseconds. */
export const ProfessionalCredentials = Schema.Struct({
  access_token: Schema.String,
  /** When the access token expires (60 days after it was issued). */
  expires_at: Schema.optionalKey(Schema.Number),
  /** Only apps LinkedIn approved for programmatic refresh get one. */
  refresh_token: Schema.optionalKey(Schema.String),
  /** When the refresh token expires: the person must connect again by then. */
  refresh_expires_at: Schema.optionalKey(Schema.Number),
  /** The consenting member's URN (`urn:li:person:{sub}`). */
  member: Schema.optionalKey(Schema.String),
  /** The scopes granted (`w_member_social`, `w_organization_social`, …). */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})
/** LinkedIn credentials. */
export type ProfessionalCredentials = typeof ProfessionalCredentials.Type

const stored = Credentials.codec(ProfessionalCredentials)
/** Serializes credentials for `account.credentials`. */
export const encode = stored.encode
/**
 * Reads an account's credentials; missing or unreadable ones can only be fixed by connecting the
 * account again: `token_expired` with `needsReconnect`.
 */
export const decode = stored.decode
