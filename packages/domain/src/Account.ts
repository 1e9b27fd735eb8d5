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
  /** Unique identifier of the profile, `prof_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the profile, `prof_…`." }),
  /** Name of the profile, as the operator gave it. */
  name: Schema.String.annotate({ description: "Name of the profile, as the operator gave it." }),
  /** When the profile was created, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the profile was created, ISO 8601 in UTC with milliseconds." })
}).annotate({ description: "A profile groups the accounts that publish together (a brand, a client)." })
export type Profile = typeof Profile.Type

/** The connection state of an account. */
export const AccountStatus = Schema.Literals(["connected", "needs_reconnect", "disconnected"]).annotate({
  description:
    "`connected`: posts publish. `needs_reconnect`: the platform refused the account's token or permission; its targets " +
    "fail with `token_expired` or `permission_missing` until it is connected again. `disconnected`: its targets fail with `token_expired` until it is connected again."
})
export type AccountStatus = typeof AccountStatus.Type

/** An account's posting quota over the rolling 24 hours. */
export const Quota = Schema.Struct({
  /** Targets of the account in the 24 hours ending now, an integer: those not `cancelled`, `rejected` or `failed`, counted at their `published_at`, else their post's publish time. */
  used: Schema.Int.annotate({ description: "Targets of the account in the 24 hours ending now, an integer: those not `cancelled`, `rejected` or `failed`, counted at their `published_at`, else their post's publish time." }),
  /** Targets allowed per rolling 24 hours, an integer: by default 15 for shortvideo, 100 for photo, 50 for pages, 250 for textpost, unless the operator set another for the account. */
  limit: Schema.Int.annotate({ description: "Targets allowed per rolling 24 hours, an integer: by default 15 for shortvideo, 100 for photo, 50 for pages, 250 for textpost, unless the operator set another for the account." }),
  /** When the oldest counted target leaves the window and frees a slot, ISO 8601 in UTC; `null` when none is counted. */
  resets_at: Schema.NullOr(Instant).annotate({ description: "When the oldest counted target leaves the window and frees a slot, ISO 8601 in UTC; `null` when none is counted." })
}).annotate({ description: "The account's posting quota over the rolling 24 hours. A post over it is 422 `quota_exceeded`." })
export type Quota = typeof Quota.Type

/** A social account that posts can target. */
export const Account = Schema.Struct({
  /** Unique identifier of the account, `acc_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the account, `acc_…`." }),
  /** The profile the account belongs to, `prof_…`. */
  profile_id: Schema.String.annotate({ description: "The profile the account belongs to, `prof_…`." }),
  /** The platform the account publishes to. */
  platform: Platform.annotate({ description: "The platform the account publishes to." }),
  /** The account's name on its platform, for display. */
  handle: Schema.String.annotate({ description: "The account's name on its platform, for display." }),
  /** `true` for a sandbox account, which publishes to the built-in simulated platform. Test keys (`svc_test_…`) may only post to sandbox accounts (403 `test_key_live_account`). */
  sandbox: Schema.Boolean.annotate({ description: "`true` for a sandbox account, which publishes to the built-in simulated platform. Test keys (`svc_test_…`) may only post to sandbox accounts (403 `test_key_live_account`)." }),
  /** `connected`, `needs_reconnect` (the platform refused its token or permission) or `disconnected`. */
  status: AccountStatus,
  /** The account's posting quota over the rolling 24 hours. */
  quota: Quota,
  /** When the account was added, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the account was added, ISO 8601 in UTC with milliseconds." })
}).annotate({ description: "A social account that posts can target." })
export type Account = typeof Account.Type

/** GET /accounts query. */
export const ListAccountsQuery = Schema.Struct({
  /** Only accounts of this profile, `prof_…`. */
  profile_id: Schema.optionalKey(ProfileId.annotate({ description: "Only accounts of this profile, `prof_…`." })),
  /** Only accounts on this platform. */
  platform: Schema.optionalKey(Platform.annotate({ description: "Only accounts on this platform." })),
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListAccountsQuery = typeof ListAccountsQuery.Type

/** GET /profiles query. */
export const ListProfilesQuery = Schema.Struct({
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListProfilesQuery = typeof ListProfilesQuery.Type

/** A page of accounts. */
export const AccountList = ListEnvelope(Account)
/** A page of profiles. */
export const ProfileList = ListEnvelope(Profile)
