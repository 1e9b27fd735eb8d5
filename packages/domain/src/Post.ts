/**
 * Posts and targets on the wire: the create request (also used by validate), the create
 * response, the post detail, updates, retries and the list query.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { TargetMetricsBlock } from "./Analytics.ts"
import { ErrorItem, ErrorObject } from "./ApiError.ts"
import * as ErrorDetail from "./ErrorDetail.ts"
import { AccountId, MediaId, ProfileId } from "./Ids.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Platform, PrivacyLevel } from "./Platform.ts"
import { createPostExamples } from "./PostExamples.ts"
import { Instant, InstantInput } from "./Timestamp.ts"

/** Status of a target, and of a post (a post may also be `partially_published`). */
export const TargetStatus = Schema.Literals([
  "awaiting_approval",
  "scheduled",
  "queued",
  "publishing",
  "published",
  "failed",
  "cancelled",
  "rejected"
]).annotate({
  description:
    "Status of a target: `awaiting_approval` (waits for the approval link's decision), `scheduled` (approved, waits for " +
    "`scheduled_at`), `queued` (due, waits for a worker), `publishing` (the platform is being called), `published`, " +
    "`failed` (see `error`), `cancelled`, `rejected` (the approval was rejected)."
})
export type TargetStatus = typeof TargetStatus.Type

/** Status of a post, derived from its targets. */
export const PostStatus = Schema.Literals([...TargetStatus.literals, "partially_published"]).annotate({
  description:
    "Status of a post, derived from its targets: the targets' status when they all share one; otherwise the " +
    "furthest-behind active status, or `partially_published` when some targets published and the rest failed or were cancelled."
})
export type PostStatus = typeof PostStatus.Type

/** The kind of photo-platform post. */
export const PhotoType = Schema.Literals(["reel", "feed", "story"]).annotate({
  description:
    "Kind of Instagram post: `reel` (exactly one video), `feed` (1 to 10 images or videos; more than one is a carousel), " +
    "`story` (exactly one image or video)."
})
export type PhotoType = typeof PhotoType.Type

/** Photo-platform options of a target. */
export const PhotoOptions = Schema.Struct({
  /** Kind of Instagram post: `reel` (exactly one video), `feed` (1 to 10 images or videos; more than one is a carousel), `story` (exactly one image or video). */
  type: PhotoType
}).annotate({
  description:
    "Options of a `photo` (Instagram) target. Only for photo accounts (400 otherwise). Without it, a post of exactly one " +
    "video is a `reel` and any other post a `feed` post."
})
export type PhotoOptions = typeof PhotoOptions.Type

/**
 * The consent a person gives for a shortvideo direct post (TikTok's Content Sharing Guidelines).
 * `privacy_level` must be one of the account's options; `music_usage_confirmed` must be `true`.
 */
export const Consent = Schema.Struct({
  /** Who may watch the video, chosen by the person from the creator's `privacy_level_options` (no default); one the creator is not offered is 422 `privacy_level_mismatch`. */
  privacy_level: PrivacyLevel.annotate({ description: "Who may watch the video, chosen by the person from the creator's `privacy_level_options` (no default); one the creator is not offered is 422 `privacy_level_mismatch`." }),
  /** The person agreed to TikTok's Music Usage Confirmation. Must be `true`. */
  music_usage_confirmed: Schema.Literal(true).annotate({ ...ErrorDetail.annotation(ErrorDetail.reason("must_be_true")), description: "The person agreed to TikTok's Music Usage Confirmation. Must be `true`." }),
  /** The video promotes a third party (TikTok's "Branded content"); cannot be combined with `SELF_ONLY` (422 `privacy_level_mismatch`). Default `false`. */
  branded_content: Schema.optionalKey(Schema.Boolean.annotate({ description: "The video promotes a third party (TikTok's \"Branded content\"); cannot be combined with `SELF_ONLY` (422 `privacy_level_mismatch`). Default `false`." })),
  /** The video promotes the creator's own business (TikTok's "Your brand"). Default `false`. */
  brand_organic: Schema.optionalKey(Schema.Boolean.annotate({ description: "The video promotes the creator's own business (TikTok's \"Your brand\"). Default `false`." })),
  /** Turns comments off on the video. Default `false`. */
  disable_comment: Schema.optionalKey(Schema.Boolean.annotate({ description: "Turns comments off on the video. Default `false`." })),
  /** Turns Duet off on the video. Default `false`. */
  disable_duet: Schema.optionalKey(Schema.Boolean.annotate({ description: "Turns Duet off on the video. Default `false`." })),
  /** Turns Stitch off on the video. Default `false`. */
  disable_stitch: Schema.optionalKey(Schema.Boolean.annotate({ description: "Turns Stitch off on the video. Default `false`." }))
}).annotate({
  description:
    "The consent a person gives for a TikTok direct post, as TikTok's Content Sharing Guidelines require. Postwire records " +
    "who gave it (the API key, or the approval page) and when."
})
export type Consent = typeof Consent.Type

/** Shortvideo options of a target. */
export const ShortVideoOptions = Schema.Struct({
  /** `direct` publishes the video to the creator's profile; `inbox` sends it to the creator's TikTok inbox as a draft to finish in the app (no consent needed). */
  mode: Schema.Literals(["direct", "inbox"]).annotate({ description: "`direct` publishes the video to the creator's profile; `inbox` sends it to the creator's TikTok inbox as a draft to finish in the app (no consent needed)." }),
  /** The creator's consent for a `direct` post. Without it, a `direct` target waits for the approval link, whose page asks for it; with `approval.mode` `none` it is 422 `consent_required`. */
  consent: Schema.optionalKey(Consent.annotate({ description: "The creator's consent for a `direct` post. Without it, a `direct` target waits for the approval link, whose page asks for it; with `approval.mode` `none` it is 422 `consent_required`." }))
}).annotate({
  description:
    "Options of a `shortvideo` (TikTok) target. Only for shortvideo accounts (400 otherwise). Without it, the target is an " +
    "`inbox` post."
})
export type ShortVideoOptions = typeof ShortVideoOptions.Type

/**
 * Any other platform's options on a target (`targets[].<platform>`): the platform's plugin
 * decodes them with its `options.schema`, and a key that is no served platform's is 400.
 */
const OtherOptions = Schema.Record(Schema.String, Schema.Unknown)

/** One target of a create request. */
export const TargetInput = Schema.StructWithRest(Schema.Struct({
  /** The account to publish to, `acc_…`. It must belong to `profile_id`; each account at most once per post. An unknown account, or one of another workspace, is 403 `account_forbidden`. */
  account_id: AccountId.annotate({ description: "The account to publish to, `acc_…`. It must belong to `profile_id`; each account at most once per post. An unknown account, or one of another workspace, is 403 `account_forbidden`." }),
  /** Instagram options, for a photo account only. Without them, a post of exactly one video is a `reel` and any other post a `feed` post. */
  photo: Schema.optionalKey(PhotoOptions),
  /** TikTok options, for a shortvideo account only. Without them, the target is an `inbox` post. */
  shortvideo: Schema.optionalKey(ShortVideoOptions)
}), [OtherOptions]).annotate({
  description:
    "One account to publish to. Platform options sit at the top level of the entry under the platform's word " +
    "(`targets[].photo`, `targets[].shortvideo`, or a plugin's), and only the account's own platform's options are " +
    "accepted; a key that is no served platform's is 400. Responses show the same options under `targets[].options`."
})
export type TargetInput = typeof TargetInput.Type

const Email = Schema.String.check(
  Schema.makeFilter(
    (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
    { ...ErrorDetail.annotation(ErrorDetail.reason("email")), toJsonSchema: () => ({ format: "email" }) }
  )
).annotate({ description: "E-mail address that receives the approval link when the post is created." })

/** How a post is approved: through a public link (default) or not at all. */
export const ApprovalInput = Schema.Struct({
  /** `link` (default): every target waits for a decision on a public approval link. `none`: targets are scheduled or queued at once; a shortvideo `direct` target then needs `consent`. */
  mode: Schema.optionalKey(Schema.Literals(["link", "none"]).annotate({ description: "`link` (default): every target waits for a decision on a public approval link. `none`: targets are scheduled or queued at once; a shortvideo `direct` target then needs `consent`." })),
  /** Who is told about the approval link, and in which language. Only used with `mode` `link`. */
  notify: Schema.optionalKey(
    Schema.Struct({
      /** E-mail address that receives the approval link when the post is created. */
      email: Schema.optionalKey(Email),
      /** Language of the e-mail: `en` (default) or `id` (Indonesian). */
      locale: Schema.optionalKey(Schema.Literals(["en", "id"]).annotate({ description: "Language of the e-mail: `en` (default) or `id` (Indonesian)." }))
    }).annotate({ description: "Who is told about the approval link, and in which language. Only used with `mode` `link`." })
  )
}).annotate({ description: "How the post is approved before publishing. Default `{ \"mode\": \"link\" }`." })
export type ApprovalInput = typeof ApprovalInput.Type

/** Maximum number of targets in one post. */
export const maxTargets = 50

/** The most media ids a post takes (TikTok photo posts: 35); each platform's rules take fewer. */
export const maxMedia = 35

/** The create request, also the body of POST /posts/validate. */
export const CreatePostRequest = Schema.Struct({
  /** The profile the post belongs to, `prof_…`. Every target account must belong to it; an unknown profile is 404 `not_found`. */
  profile_id: ProfileId.annotate({ description: "The profile the post belongs to, `prof_…`. Every target account must belong to it; an unknown profile is 404 `not_found`." }),
  /** Text published with the post. At most 2,200 characters for shortvideo and photo targets, 500 for textpost and 63,206 for pages by default (422 `caption_too_long`). */
  caption: Schema.String.annotate({ description: "Text published with the post. At most 2,200 characters for shortvideo and photo targets, 500 for textpost and 63,206 for pages by default (422 `caption_too_long`)." }),
  /** 1 to 35 media ids (`med_…`) from `POST /v1/media`, in display order, each at most once. How many and which kinds each target takes is its platform's rule (docs/platforms.md lists them): a count or kind the platform does not take is 422 `media_invalid` naming the rule and the limit; a video over the platform's length is 422 `media_too_long`. */
  media: Schema.Array(MediaId).check(Schema.isMinLength(1), Schema.isMaxLength(maxMedia)).annotate({ description: "1 to 35 media ids (`med_…`) from `POST /v1/media`, in display order, each at most once. How many and which kinds each target takes is its platform's rule (docs/platforms.md lists them): a count or kind the platform does not take is 422 `media_invalid` naming the rule and the limit; a video over the platform's length is 422 `media_too_long`." }),
  /** 1 to 50 accounts to publish to, one entry per account. Each target has its own status; one failing does not affect the others. */
  targets: Schema.Array(TargetInput).check(Schema.isMinLength(1), Schema.isMaxLength(maxTargets)).annotate({ description: "1 to 50 accounts to publish to, one entry per account. Each target has its own status; one failing does not affect the others." }),
  /** When to publish: an ISO 8601 instant with an offset (`2026-12-01T09:00:00+07:00`). Omitted, `null` or in the past: as soon as approved (at once with `approval.mode` `none`). An instant without an offset is 400. */
  scheduled_at: Schema.optionalKey(Schema.NullOr(InstantInput).annotate({ description: "When to publish: an ISO 8601 instant with an offset (`2026-12-01T09:00:00+07:00`). Omitted, `null` or in the past: as soon as approved (at once with `approval.mode` `none`). An instant without an offset is 400." })),
  /** How the post is approved before publishing. Default `{ "mode": "link" }`. */
  approval: Schema.optionalKey(ApprovalInput),
  /** Marks the content as AI generated; sent to TikTok as its `is_aigc` label. Default `false`. */
  ai_generated: Schema.optionalKey(Schema.Boolean.annotate({ description: "Marks the content as AI generated; sent to TikTok as its `is_aigc` label. Default `false`." }))
}).annotate({
  description: "A post to create (or validate): a caption plus media, published to one or more accounts. Unknown fields are refused with 400 naming the field.",
  // Examples are wire bodies: their ids are plain strings, without the type-level brand.
  examples: Object.values(createPostExamples).map((example) => example.value as unknown as CreatePostRequest)
})
export type CreatePostRequest = typeof CreatePostRequest.Type

export { createPostExamples, examplePlaceholders, type RequestExample } from "./PostExamples.ts"

/** The options a target was created with. */
export const TargetOptions = Schema.StructWithRest(Schema.Struct({
  /** The Instagram options the target publishes with, with `type` filled in when the request left it out. Present on photo targets only. */
  photo: Schema.optionalKey(PhotoOptions.annotate({ description: "The Instagram options the target publishes with, with `type` filled in when the request left it out. Present on photo targets only." })),
  /** The TikTok options the target publishes with (`mode` `inbox` when the request had none), with the consent in force. Present on shortvideo targets only. */
  shortvideo: Schema.optionalKey(ShortVideoOptions.annotate({ description: "The TikTok options the target publishes with (`mode` `inbox` when the request had none), with the consent in force. Present on shortvideo targets only." }))
}), [OtherOptions]).annotate({
  description:
    "The platform options the target publishes with, under its platform's word. Requests send them at the top level " +
    "of a target (`targets[].shortvideo`); responses nest them here (`targets[].options.shortvideo`) beside the " +
    "target's status. Empty for a platform without options (pages, textpost)."
})
export type TargetOptions = typeof TargetOptions.Type

/** One media item a platform received as a rendition of another format (Instagram: a JPEG of a PNG). */
export const TargetConversion = Schema.Struct({
  /** The media item, `med_…`. */
  media_id: Schema.String.annotate({ description: "The media item, `med_…`." }),
  /** The item's own format, for example `image/png`. */
  from: Schema.String.annotate({ description: "The item's own format, for example `image/png`." }),
  /** The format the platform received, for example `image/jpeg`. */
  to: Schema.String.annotate({ description: "The format the platform received, for example `image/jpeg`." })
}).annotate({ description: "One media item the platform received as a rendition made from it in another format." })

/** What Postwire did to make a target publishable instead of refusing it. */
export const TargetDetails = Schema.Struct({
  /** The media the platform received converted (Instagram takes JPEG images only: a PNG or WebP is sent as a JPEG made from it, the original kept). */
  converted: Schema.Array(TargetConversion).annotate({
    description:
      "The media the platform received converted (Instagram takes JPEG images only: a PNG or WebP is sent as a JPEG made from it, the original kept)."
  })
}).annotate({ description: "What Postwire did to make the target publishable instead of refusing it. Present only when it did something." })
export type TargetDetails = typeof TargetDetails.Type

/** A target as the API shows it. */
export const Target = Schema.Struct({
  /** Unique identifier of the target, `tgt_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the target, `tgt_…`." }),
  /** The account the target publishes to, `acc_…`. */
  account_id: Schema.String.annotate({ description: "The account the target publishes to, `acc_…`." }),
  /** The account's platform. */
  platform: Platform.annotate({ description: "The account's platform." }),
  /** Status of the target: `awaiting_approval`, `scheduled`, `queued`, `publishing`, `published`, `failed` (see `error`), `cancelled` or `rejected`. */
  status: TargetStatus,
  /** Public address of the published item. `null` until published; for a TikTok post still in moderation (filled in later); and for a TikTok inbox post on a live account, which the creator finishes in the app. */
  permalink: Schema.NullOr(Schema.String).annotate({ description: "Public address of the published item. `null` until published; for a TikTok post still in moderation (filled in later); and for a TikTok inbox post on a live account, which the creator finishes in the app." }),
  /** When the platform published it, ISO 8601 in UTC with milliseconds. `null` unless `published`. */
  published_at: Schema.NullOr(Instant).annotate({ description: "When the platform published it, ISO 8601 in UTC with milliseconds. `null` unless `published`." }),
  /** Why the last attempt failed, in the shared error shape, with the platform's own code in `platform_code` when there is one. `null` until an attempt fails; cleared when a retry queues the target again. */
  error: Schema.NullOr(ErrorObject).annotate({ description: "Why the last attempt failed, in the shared error shape, with the platform's own code in `platform_code` when there is one. `null` until an attempt fails; cleared when a retry queues the target again." }),
  /** Publishing attempts finished so far, published or failed (an integer, 0 before the first). */
  attempts: Schema.Int.annotate({ description: "Publishing attempts finished so far, published or failed (an integer, 0 before the first)." }),
  /** The platform options the target publishes with. Requests send them at the top level of a target (`targets[].shortvideo`); responses nest them here (`targets[].options.shortvideo`) beside the target's status. Empty for pages and textpost targets. */
  options: TargetOptions,
  /** What Postwire did to make the target publishable instead of refusing it (the images sent as JPEG). Absent when it did nothing. */
  details: Schema.optionalKey(TargetDetails),
  /** The latest metrics read from the platform (`GET /v1/posts/{id}` only; lists leave it out): `null` before the first reading. */
  metrics: Schema.optionalKey(
    Schema.NullOr(TargetMetricsBlock).annotate({
      description:
        "The latest metrics read from the platform, in `GET /v1/posts/{id}` only (lists leave it out): `null` before the " +
        "first reading or when the platform provides none. History and raw names: `GET /v1/posts/{id}/metrics`."
    })
  )
}).annotate({ description: "One account a post publishes to, with its own status and its permalink or error." })
export type Target = typeof Target.Type

/** The approval of a post. */
export const Approval = Schema.Struct({
  /** Unique identifier of the approval, `apr_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the approval, `apr_…`." }),
  /** `pending` until decided (also for a cancelled post), then `approved` or `rejected`; `expired` once `expires_at` passed undecided. */
  status: Schema.Literals(["pending", "approved", "rejected", "expired"]).annotate({ description: "`pending` until decided (also for a cancelled post), then `approved` or `rejected`; `expired` once `expires_at` passed undecided." }),
  /** The public approval page, `{public_base_url}/approve/{token}`. Anyone with it can decide once; share it only with the approver. `null` for a key made with `approval_links: hidden` (agents and integrations never hold a link that approves). */
  url: Schema.NullOr(Schema.String).annotate({ description: "The public approval page, `{public_base_url}/approve/{token}`. Anyone with it can decide once; share it only with the approver. `null` for a key made with `approval_links: hidden` (agents and integrations never hold a link that approves)." }),
  /** When the link stops accepting a decision (7 days after it was made by default), ISO 8601 in UTC. */
  expires_at: Instant.annotate({ description: "When the link stops accepting a decision (7 days after it was made by default), ISO 8601 in UTC." }),
  /** When the decision was taken, ISO 8601 in UTC; `null` while undecided. */
  decided_at: Schema.NullOr(Instant).annotate({ description: "When the decision was taken, ISO 8601 in UTC; `null` while undecided." })
}).annotate({ description: "The approval link of a post and its decision." })
export type Approval = typeof Approval.Type

const postFields = {
  /** Unique identifier of the post, `post_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the post, `post_…`." }),
  /** The profile the post belongs to, `prof_…`. */
  profile_id: Schema.String.annotate({ description: "The profile the post belongs to, `prof_…`." }),
  /** Text published with the post. */
  caption: Schema.String.annotate({ description: "Text published with the post." }),
  /** Media ids (`med_…`), in display order. */
  media: Schema.Array(Schema.String).annotate({ description: "Media ids (`med_…`), in display order." }),
  /** Status of the post, derived from its targets; `partially_published` when some published and the rest failed or were cancelled. */
  status: PostStatus,
  /** When the post publishes, ISO 8601 in UTC with milliseconds; `null` for as soon as approved. */
  scheduled_at: Schema.NullOr(Instant).annotate({ description: "When the post publishes, ISO 8601 in UTC with milliseconds; `null` for as soon as approved." }),
  /** Whether the content is marked as AI generated. */
  ai_generated: Schema.Boolean.annotate({ description: "Whether the content is marked as AI generated." }),
  /** The accounts the post publishes to, in request order. */
  targets: Schema.Array(Target).annotate({ description: "The accounts the post publishes to, in request order." }),
  /** When the post was created, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the post was created, ISO 8601 in UTC with milliseconds." }),
  /** When the post or one of its targets last changed, ISO 8601 in UTC with milliseconds. */
  updated_at: Instant.annotate({ description: "When the post or one of its targets last changed, ISO 8601 in UTC with milliseconds." })
}

/** The post detail returned by GET, PATCH and cancel. */
export const Post = Schema.Struct({
  ...postFields,
  /** The approval link and its decision; `null` when the post was created with `approval.mode` `none`. */
  approval: Schema.NullOr(Approval).annotate({ description: "The approval link and its decision; `null` when the post was created with `approval.mode` `none`." })
}).annotate({ description: "A post: its caption, media, approval, and each target's status with its permalink or error." })
export type Post = typeof Post.Type

/** The 201 response of POST /posts: the post, its approval when a link exists, and warnings. */
export const CreatePostResponse = Schema.Struct({
  ...postFields,
  /** The approval link: present when one was made (`approval.mode` `link`), absent otherwise. */
  approval: Schema.optionalKey(Approval.annotate({ description: "The approval link: present when one was made (`approval.mode` `link`), absent otherwise." })),
  /** Problems that did not stop the post, in the shared error shape. Always present; empty today. */
  warnings: Schema.Array(ErrorItem).annotate({ description: "Problems that did not stop the post, in the shared error shape. Always present; empty today." })
}).annotate({ description: "The post just created, its approval link when one exists, and warnings." })
export type CreatePostResponse = typeof CreatePostResponse.Type

/** The response of POST /posts/validate: every problem found, nothing saved. */
export const ValidatePostResponse = Schema.Struct({
  /** Every problem found, in the shared error shape with `field` and `target_id` where they apply; empty when the post would be accepted. */
  issues: Schema.Array(ErrorItem).annotate({ description: "Every problem found, in the shared error shape with `field` and `target_id` where they apply; empty when the post would be accepted." })
}).annotate({ description: "What POST /v1/posts would refuse, without saving anything." })
export type ValidatePostResponse = typeof ValidatePostResponse.Type

/** PATCH /posts/{id}: change the caption and/or the schedule (`null`: as soon as approved). */
export const UpdatePostRequest = Schema.Struct({
  /** New caption, with the same per-platform limits as on creation. Changing it after approval sends a `link` post back to `awaiting_approval` with a new link. */
  caption: Schema.optionalKey(Schema.String.annotate({ description: "New caption, with the same per-platform limits as on creation. Changing it after approval sends a `link` post back to `awaiting_approval` with a new link." })),
  /** New publish time, an ISO 8601 instant with an offset; `null` or a past instant publishes as soon as approved (at once when already approved). */
  scheduled_at: Schema.optionalKey(Schema.NullOr(InstantInput).annotate({ description: "New publish time, an ISO 8601 instant with an offset; `null` or a past instant publishes as soon as approved (at once when already approved)." }))
}).annotate({
  description: "What to change; fields left out stay as they are. Allowed until a target starts publishing (409 `invalid_state` after).",
  examples: [{ caption: "Launching tomorrow instead: see you there!", scheduled_at: "2026-12-02T09:00:00+07:00" }, { scheduled_at: null }]
})
export type UpdatePostRequest = typeof UpdatePostRequest.Type

/** POST /posts/{id}/retry: the targets that were queued again. */
export const RetryPostResponse = Schema.Struct({
  /** The targets queued again: those that failed with `retryable: true`. */
  data: Schema.Array(Target).annotate({ description: "The targets queued again: those that failed with `retryable: true`." })
}).annotate({ description: "The targets a retry queued again." })
export type RetryPostResponse = typeof RetryPostResponse.Type

/** GET /posts query. `from` is inclusive and `to` exclusive, on the post's publish time. */
export const ListPostsQuery = Schema.Struct({
  /** Only posts with this status. */
  status: Schema.optionalKey(PostStatus.annotate({ description: "Only posts with this status." })),
  /** Only posts of this profile, `prof_…`. */
  profile_id: Schema.optionalKey(ProfileId.annotate({ description: "Only posts of this profile, `prof_…`." })),
  /** Only posts with at least one target on this platform. */
  platform: Schema.optionalKey(Platform.annotate({ description: "Only posts with at least one target on this platform." })),
  /** Only posts whose publish time (`scheduled_at`, else `created_at`) is at or after this ISO 8601 instant with an offset. */
  from: Schema.optionalKey(InstantInput.annotate({ description: "Only posts whose publish time (`scheduled_at`, else `created_at`) is at or after this ISO 8601 instant with an offset." })),
  /** Only posts whose publish time is before this instant (exclusive). With `from`, it must be after `from` and at most 92 days later (else 400 `invalid_range`). */
  to: Schema.optionalKey(InstantInput.annotate({ description: "Only posts whose publish time is before this instant (exclusive). With `from`, it must be after `from` and at most 92 days later (else 400 `invalid_range`)." })),
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page, with the same filters; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListPostsQuery = typeof ListPostsQuery.Type

/** A page of posts. */
export const PostList = ListEnvelope(Post)
export type PostList = typeof PostList.Type

/** Most items in one `POST /posts/batch`. */
export const maxBatchItems = 31

/** POST /posts/batch: up to 31 create requests, each created or refused on its own. */
export const CreatePostBatchRequest = Schema.Struct({
  /** 1 to 31 create requests, each with the body of `POST /v1/posts`. Each is checked and created on its own; results come back in this order. Fewer or more items is 400 naming `items`. */
  items: Schema.Array(CreatePostRequest).check(Schema.isMinLength(1), Schema.isMaxLength(maxBatchItems)).annotate({ description: "1 to 31 create requests, each with the body of `POST /v1/posts`. Each is checked and created on its own; results come back in this order. Fewer or more items is 400 naming `items`." })
}).annotate({
  description: "Several posts to create in one call, for example a month of content.",
  examples: [
    {
      items: [
        { ...createPostExamples.one_image_now.value, scheduled_at: "2026-12-01T09:00:00+07:00" },
        { ...createPostExamples.one_image_now.value, scheduled_at: "2026-12-02T09:00:00+07:00" }
      ] as unknown as ReadonlyArray<CreatePostRequest>
    }
  ]
})
export type CreatePostBatchRequest = typeof CreatePostBatchRequest.Type

/** The fate of one batch item: the post created, or the error it would have had alone. */
export const PostBatchResult = Schema.Struct({
  /** Position of the item in `items`, from 0. */
  index: Schema.Int.annotate({ description: "Position of the item in `items`, from 0." }),
  /** The HTTP status the item would have had as a `POST /v1/posts` of its own: 201 when created, else its error's status (e.g. 404, 422, 429 `quota_exceeded_for_day`). */
  status: Schema.Int.annotate({ description: "The HTTP status the item would have had as a `POST /v1/posts` of its own: 201 when created, else its error's status (e.g. 404, 422, 429 `quota_exceeded_for_day`)." }),
  /** The post created, as `POST /v1/posts` answers it; present when `status` is 201. */
  post: Schema.optionalKey(CreatePostResponse.annotate({ description: "The post created, as `POST /v1/posts` answers it; present when `status` is 201." })),
  /** Why the item was refused, in the shared error shape; its `field` is a path into the batch (`items[3].scheduled_at`). Present when `status` is not 201. */
  error: Schema.optionalKey(ErrorObject.annotate({ description: "Why the item was refused, in the shared error shape; its `field` is a path into the batch (`items[3].scheduled_at`). Present when `status` is not 201." }))
}).annotate({ description: "One item of a batch: its index, its status, and the created post or the error." })
export type PostBatchResult = typeof PostBatchResult.Type

/** The 200 response of POST /posts/batch: every item's result, in request order. */
export const CreatePostBatchResponse = Schema.Struct({
  /** One result per item, in the order of `items`, each with its `index`. */
  data: Schema.Array(PostBatchResult).annotate({ description: "One result per item, in the order of `items`, each with its `index`." }),
  /** How many items were created. */
  created: Schema.Int.annotate({ description: "How many items were created." }),
  /** How many items were refused. */
  refused: Schema.Int.annotate({ description: "How many items were refused." })
}).annotate({ description: "What became of each item of a batch: created posts and refused items side by side." })
export type CreatePostBatchResponse = typeof CreatePostBatchResponse.Type
