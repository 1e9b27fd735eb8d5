/**
 * A Mastodon account's credentials: the JSON sealed in `account.credentials`. Mastodon's user
 * tokens do not expire (https://docs.joinmastodon.org/methods/oauth/#token: no `expires_in`); the
 * app's `client_id` and `client_secret` are kept with them to revoke the token on disconnect
 * (https://docs.joinmastodon.org/methods/oauth/#revoke).
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as Credentials from "../Credentials.ts"

/** Mastodon credentials. */
export const FediverseCredentials = Schema.Struct({
  /** The server's address, `https://host` (no trailing slash). */
  server: Schema.String,
  access_token: Schema.String,
  /** The app registered on that server (`POST /api/v1/apps`). */
  client_id: Schema.String,
  client_secret: Schema.String,
  /** The account's id on its server (`/api/v1/accounts/verify_credentials`). */
  account_id: Schema.String,
  /** The scopes granted, as the token answer listed them. */
  scopes: Schema.optionalKey(Schema.Array(Schema.String))
})
/** Mastodon credentials. */
export type FediverseCredentials = typeof FediverseCredentials.Type

const stored = Credentials.codec(FediverseCredentials)
/** Serializes credentials to the JSON stored (sealed) in `account.credentials`. */
export const encode = stored.encode
/** Reads an account's credentials; missing or unreadable ones ask for a reconnect. */
export const decode = stored.decode
