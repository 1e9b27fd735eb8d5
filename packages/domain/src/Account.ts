/**
 * Profiles and accounts on the wire.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ProfileId } from "./Ids.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Platform } from "./Platform.ts"
import { Instant } from "./Timestamp.ts"

/** A profile groups the accounts that publish together (a brand, a client). */
export const Profile = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  created_at: Instant
})
export type Profile = typeof Profile.Type

/** The connection state of an account. */
export const AccountStatus = Schema.Literals(["connected", "needs_reconnect", "disconnected"])
export type AccountStatus = typeof AccountStatus.Type

/** An account's posting quota over the rolling 24 hours. */
export const Quota = Schema.Struct({
  used: Schema.Number,
  limit: Schema.Number,
  resets_at: Schema.NullOr(Instant)
})
export type Quota = typeof Quota.Type

/** A social account that posts can target. */
export const Account = Schema.Struct({
  id: Schema.String,
  profile_id: Schema.String,
  platform: Platform,
  handle: Schema.String,
  sandbox: Schema.Boolean,
  status: AccountStatus,
  quota: Quota,
  created_at: Instant
})
export type Account = typeof Account.Type

/** GET /accounts query. */
export const ListAccountsQuery = Schema.Struct({
  profile_id: Schema.optionalKey(ProfileId),
  platform: Schema.optionalKey(Platform),
  limit: Schema.optionalKey(PageLimit),
  cursor: Schema.optionalKey(Schema.String)
})
export type ListAccountsQuery = typeof ListAccountsQuery.Type

/** GET /profiles query. */
export const ListProfilesQuery = Schema.Struct({
  limit: Schema.optionalKey(PageLimit),
  cursor: Schema.optionalKey(Schema.String)
})
export type ListProfilesQuery = typeof ListProfilesQuery.Type

/** A page of accounts. */
export const AccountList = ListEnvelope(Account)
/** A page of profiles. */
export const ProfileList = ListEnvelope(Profile)
