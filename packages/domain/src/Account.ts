/**
 * Profiles and accounts on the wire.
 *
 * @since 0.1.0
 */
import { CommentCapabilities } from "./Comment.ts"
import { Schema } from "effect"
import { ErrorItem } from "./ApiError.ts"
import * as ErrorDetail from "./ErrorDetail.ts"
import { ProfileId } from "./Ids.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { builtinPlatforms, Platform } from "./Platform.ts"
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
  /** Targets allowed per rolling 24 hours, an integer: by default the platform's own (15 for shortvideo, 100 for photo, 50 for pages, 250 for textpost, 300 for fediverse, 150 for professional, 6 for video, 11,666 for atproto; a plugin's says its own), unless the operator set another for the account. */
  limit: Schema.Int.annotate({ description: "Targets allowed per rolling 24 hours, an integer: by default the platform's own (15 for shortvideo, 100 for photo, 50 for pages, 250 for textpost, 300 for fediverse, 150 for professional, 6 for video, 11,666 for atproto; a plugin's says its own), unless the operator set another for the account." }),
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
  created_at: Instant.annotate({ description: "When the account was added, ISO 8601 in UTC with milliseconds." }),
  /** The name people see on the platform (a Page's name for `pages`); `null` when the platform gives none. */
  display_name: Schema.NullOr(Schema.String).annotate({
    description: "The name people see on the platform (a Page's name for `pages`); `null` when the platform gives none."
  }),
  /** The profile picture's `https:` address as the platform gave it at the last connect (`null` when the platform gave none, or an address of another kind); platform addresses may expire. */
  avatar_url: Schema.NullOr(Schema.String).annotate({
    description:
      "The profile picture's `https:` address as the platform gave it at the last connect (`null` when the platform gave none, or an address of another kind); platform addresses may expire."
  }),
  /** When the account was last connected (or reconnected) through a connect link; `null` for accounts created by the admin API. */
  connected_at: Schema.NullOr(Instant).annotate({
    description: "When the account was last connected (or reconnected) through a connect link; `null` for accounts created by the admin API."
  }),
  /** The permissions the person granted, in the platform's own words (e.g. `video.publish`). */
  scopes: Schema.Array(Schema.String).annotate({
    description: "The permissions the person granted, in the platform's own words (e.g. `video.publish`)."
  }),
  /** When the platform access token expires unless Postwire refreshes it first; `null` when it does not expire or is unknown. The token itself is never shown. */
  token_expires_at: Schema.NullOr(Instant).annotate({
    description:
      "When the platform access token expires unless Postwire refreshes it first; `null` when it does not expire or is unknown. The token itself is never shown."
  }),
  /** shortvideo only: the privacy levels the creator may post with, as the platform last reported them. */
  privacy_level_options: Schema.optionalKey(Schema.Array(Schema.String)).annotate({
    description: "shortvideo only: the privacy levels the creator may post with, as the platform last reported them."
  }),
  /** shortvideo only: the longest video the creator may post, in seconds, as the platform last reported it. */
  max_video_post_duration_sec: Schema.optionalKey(Schema.Int).annotate({
    description: "shortvideo only: the longest video the creator may post, in seconds, as the platform last reported it."
  }),
  comments: CommentCapabilities,
  reconnect: Schema.NullOr(
    Schema.Struct({
      /** Why the account must be connected again, in the shared error shape. */
      reason: ErrorItem.annotate({ description: "Why the account must be connected again, in the shared error shape." }),
      /** The API call that makes a reconnect link for this account: `POST /v1/accounts/{id}/reconnect`. */
      endpoint: Schema.String.annotate({
        description: "The API call that makes a reconnect link for this account: `POST /v1/accounts/{id}/reconnect`."
      })
    })
  ).annotate({
    description: "Present while `status` is `needs_reconnect`: why, and how to get a link that connects the account again."
  })
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

/** A profile name: 1 to 200 characters, not only spaces. */
const ProfileName = Schema.String.check(
  Schema.makeFilter(
    (s: string) => s.trim() !== "",
    ErrorDetail.annotation(ErrorDetail.reason("must_not_be_empty"))
  ),
  Schema.isMaxLength(200)
)

/**
 * POST /profiles: a new profile.
 *
 * @example
 * ```ts
 * const request: CreateProfileRequest = { name: "Kopi Kenangan" }
 * ```
 */
export const CreateProfileRequest = Schema.Struct({
  /** The profile's name, e.g. the brand or client it stands for (1 to 200 characters). */
  name: ProfileName.annotate({ description: "The profile's name, e.g. the brand or client it stands for (1 to 200 characters)." })
}).annotate({ description: "A profile to create.", examples: [{ name: "Kopi Kenangan" }] })
export type CreateProfileRequest = typeof CreateProfileRequest.Type

/** PATCH /profiles/{id}: the fields to change. */
export const UpdateProfileRequest = Schema.Struct({
  /** The new name (1 to 200 characters). */
  name: Schema.optionalKey(ProfileName.annotate({ description: "The new name (1 to 200 characters)." }))
}).annotate({ description: "The profile's fields to change.", examples: [{ name: "Kopi Kenangan Jakarta" }] })
export type UpdateProfileRequest = typeof UpdateProfileRequest.Type

/** The 200 response of DELETE /profiles/{id}. */
export const DeletedProfile = Schema.Struct({
  /** The deleted profile's id. */
  id: Schema.String.annotate({ description: "The deleted profile's id." }),
  /** Always `true`. */
  deleted: Schema.Literal(true).annotate({ description: "Always `true`." })
})
export type DeletedProfile = typeof DeletedProfile.Type

/**
 * POST /accounts/connect: a single-use link a person opens to connect one of their accounts.
 *
 * @example
 * ```ts
 * const request: ConnectAccountRequest = {
 *   profile_id: "prof_01JD…",
 *   platform: "shortvideo",
 *   redirect_url: "https://app.example.com/accounts/connected"
 * }
 * ```
 */
export const ConnectAccountRequest = Schema.Struct({
  /** The profile the connected account will belong to. */
  profile_id: ProfileId.annotate({ description: "The profile the connected account will belong to." }),
  /** The platform to connect an account of. */
  platform: Platform.annotate({ description: "The platform to connect an account of." }),
  /** Where the person returns when done: https on one of the workspace's allowed domains. Postwire adds `status` (`connected` or `error`), and `account_id` or `error`. */
  redirect_url: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "Where the person returns when done: https on one of the workspace's allowed domains. Postwire adds `status` (`connected` or `error`), and `account_id` or `error`."
    })
  ),
  /** `true` connects a sandbox account through a simulated consent page. Always `true` with a test key. */
  sandbox: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "`true` connects a sandbox account through a simulated consent page. Always `true` with a test key."
    })
  )
}).annotate({
  description: "The account to connect: its profile and platform, and where the person returns.",
  examples: [{ profile_id: ProfileId.make("prof_01JDEXAMPLE0000000000000000"), platform: builtinPlatforms[0], sandbox: true }]
})
export type ConnectAccountRequest = typeof ConnectAccountRequest.Type

/** POST /accounts/{id}/reconnect: where the person returns when done. */
export const ReconnectAccountRequest = Schema.Struct({
  /** As for POST /accounts/connect. */
  redirect_url: Schema.optionalKey(
    Schema.String.annotate({ description: "As for POST /accounts/connect." })
  )
}).annotate({
  description: "Where the person returns when done.",
  examples: [{ redirect_url: "https://app.example.com/accounts/connected" }]
})
export type ReconnectAccountRequest = typeof ReconnectAccountRequest.Type

/** The 201 response of POST /accounts/connect and POST /accounts/{id}/reconnect. */
export const ConnectLink = Schema.Struct({
  /** The link to open in a browser. It works once, until `expires_at`. */
  url: Schema.String.annotate({ description: "The link to open in a browser. It works once, until `expires_at`." }),
  /** When the link stops working: 30 minutes after it was made. */
  expires_at: Instant.annotate({ description: "When the link stops working: 30 minutes after it was made." }),
  /** The profile the account will belong to. */
  profile_id: Schema.String.annotate({ description: "The profile the account will belong to." }),
  /** The platform the link connects. */
  platform: Platform.annotate({ description: "The platform the link connects." }),
  /** Whether the link connects a sandbox account (simulated consent). */
  sandbox: Schema.Boolean.annotate({ description: "Whether the link connects a sandbox account (simulated consent)." }),
  /** For a reconnect link, the account it renews; `null` for a new connect. */
  account_id: Schema.NullOr(Schema.String).annotate({
    description: "For a reconnect link, the account it renews; `null` for a new connect."
  })
})
export type ConnectLink = typeof ConnectLink.Type
