/**
 * Posts and targets on the wire: the create request (also used by validate), the create
 * response, the post detail, updates, retries and the list query.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ErrorItem, ErrorObject } from "./ApiError.ts"
import * as ErrorDetail from "./ErrorDetail.ts"
import { AccountId, MediaId, ProfileId } from "./Ids.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Platform, PrivacyLevel } from "./Platform.ts"
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
])
export type TargetStatus = typeof TargetStatus.Type

/** Status of a post, derived from its targets. */
export const PostStatus = Schema.Literals([...TargetStatus.literals, "partially_published"])
export type PostStatus = typeof PostStatus.Type

/** The kind of photo-platform post. */
export const PhotoType = Schema.Literals(["reel", "feed", "story"])
export type PhotoType = typeof PhotoType.Type

/** Photo-platform options of a target. */
export const PhotoOptions = Schema.Struct({
  type: PhotoType
})
export type PhotoOptions = typeof PhotoOptions.Type

/**
 * The consent a person gives for a shortvideo direct post (TikTok's Content Sharing Guidelines).
 * `privacy_level` must be one of the account's options; `music_usage_confirmed` must be `true`.
 */
export const Consent = Schema.Struct({
  privacy_level: PrivacyLevel,
  music_usage_confirmed: Schema.Literal(true).annotate(ErrorDetail.annotation(ErrorDetail.reason("must_be_true"))),
  branded_content: Schema.optionalKey(Schema.Boolean),
  brand_organic: Schema.optionalKey(Schema.Boolean),
  disable_comment: Schema.optionalKey(Schema.Boolean),
  disable_duet: Schema.optionalKey(Schema.Boolean),
  disable_stitch: Schema.optionalKey(Schema.Boolean)
})
export type Consent = typeof Consent.Type

/** Shortvideo options of a target. */
export const ShortVideoOptions = Schema.Struct({
  mode: Schema.Literals(["direct", "inbox"]),
  consent: Schema.optionalKey(Consent)
})
export type ShortVideoOptions = typeof ShortVideoOptions.Type

/** One target of a create request. */
export const TargetInput = Schema.Struct({
  account_id: AccountId,
  photo: Schema.optionalKey(PhotoOptions),
  shortvideo: Schema.optionalKey(ShortVideoOptions)
})
export type TargetInput = typeof TargetInput.Type

const Email = Schema.String.check(
  Schema.makeFilter(
    (s: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
    ErrorDetail.annotation(ErrorDetail.reason("email"))
  )
)

/** How a post is approved: through a public link (default) or not at all. */
export const ApprovalInput = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["link", "none"])),
  notify: Schema.optionalKey(
    Schema.Struct({
      email: Schema.optionalKey(Email),
      locale: Schema.optionalKey(Schema.Literals(["en", "id"]))
    })
  )
})
export type ApprovalInput = typeof ApprovalInput.Type

/** Maximum number of targets in one post. */
export const maxTargets = 50

/** The create request, also the body of POST /posts/validate. */
export const CreatePostRequest = Schema.Struct({
  profile_id: ProfileId,
  caption: Schema.String,
  media: Schema.Array(MediaId).check(Schema.isMinLength(1), Schema.isMaxLength(10)),
  targets: Schema.Array(TargetInput).check(Schema.isMinLength(1), Schema.isMaxLength(maxTargets)),
  scheduled_at: Schema.optionalKey(Schema.NullOr(InstantInput)),
  approval: Schema.optionalKey(ApprovalInput),
  ai_generated: Schema.optionalKey(Schema.Boolean)
})
export type CreatePostRequest = typeof CreatePostRequest.Type

/** The options a target was created with. */
export const TargetOptions = Schema.Struct({
  photo: Schema.optionalKey(PhotoOptions),
  shortvideo: Schema.optionalKey(ShortVideoOptions)
})
export type TargetOptions = typeof TargetOptions.Type

/** A target as the API shows it. */
export const Target = Schema.Struct({
  id: Schema.String,
  account_id: Schema.String,
  platform: Platform,
  status: TargetStatus,
  permalink: Schema.NullOr(Schema.String),
  published_at: Schema.NullOr(Instant),
  error: Schema.NullOr(ErrorObject),
  attempts: Schema.Number,
  options: TargetOptions
})
export type Target = typeof Target.Type

/** The approval of a post. */
export const Approval = Schema.Struct({
  id: Schema.String,
  status: Schema.Literals(["pending", "approved", "rejected", "expired"]),
  url: Schema.String,
  expires_at: Instant,
  decided_at: Schema.NullOr(Instant)
})
export type Approval = typeof Approval.Type

const postFields = {
  id: Schema.String,
  profile_id: Schema.String,
  caption: Schema.String,
  media: Schema.Array(Schema.String),
  status: PostStatus,
  scheduled_at: Schema.NullOr(Instant),
  ai_generated: Schema.Boolean,
  targets: Schema.Array(Target),
  created_at: Instant,
  updated_at: Instant
}

/** The post detail returned by GET, PATCH and cancel. */
export const Post = Schema.Struct({
  ...postFields,
  approval: Schema.NullOr(Approval)
})
export type Post = typeof Post.Type

/** The 201 response of POST /posts: the post, its approval when a link exists, and warnings. */
export const CreatePostResponse = Schema.Struct({
  ...postFields,
  approval: Schema.optionalKey(Approval),
  warnings: Schema.Array(ErrorItem)
})
export type CreatePostResponse = typeof CreatePostResponse.Type

/** The response of POST /posts/validate: every problem found, nothing saved. */
export const ValidatePostResponse = Schema.Struct({
  issues: Schema.Array(ErrorItem)
})
export type ValidatePostResponse = typeof ValidatePostResponse.Type

/** PATCH /posts/{id}: change the caption and/or the schedule (`null`: as soon as approved). */
export const UpdatePostRequest = Schema.Struct({
  caption: Schema.optionalKey(Schema.String),
  scheduled_at: Schema.optionalKey(Schema.NullOr(InstantInput))
})
export type UpdatePostRequest = typeof UpdatePostRequest.Type

/** POST /posts/{id}/retry: the targets that were queued again. */
export const RetryPostResponse = Schema.Struct({
  data: Schema.Array(Target)
})
export type RetryPostResponse = typeof RetryPostResponse.Type

/** GET /posts query. `from` is inclusive and `to` exclusive, on the post's publish time. */
export const ListPostsQuery = Schema.Struct({
  status: Schema.optionalKey(PostStatus),
  profile_id: Schema.optionalKey(ProfileId),
  platform: Schema.optionalKey(Platform),
  from: Schema.optionalKey(InstantInput),
  to: Schema.optionalKey(InstantInput),
  limit: Schema.optionalKey(PageLimit),
  cursor: Schema.optionalKey(Schema.String)
})
export type ListPostsQuery = typeof ListPostsQuery.Type

/** A page of posts. */
export const PostList = ListEnvelope(Post)
export type PostList = typeof PostList.Type
