/**
 * Approval decisions on the wire: what `POST /v1/approvals/{token}/decision` takes and returns.
 *
 * The approval link's token is the credential; the page at `/approve/{token}` sends the same
 * decision through a form.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Consent, Post } from "./Post.ts"

/** What the person decides. */
export const Decision = Schema.Literals(["approve", "reject"]).annotate({ description: "`approve` publishes the post's targets (at `scheduled_at`, or at once); `reject` stops them all." })
export type Decision = typeof Decision.Type

/** Longest `reason` accepted, in characters. */
export const maxReasonLength = 1000

/**
 * A decision on an approval link.
 *
 * - `consent`: for each shortvideo `direct` target that has none yet, keyed by target id
 *   (needed to approve; ignored when rejecting).
 * - `redirect_url`: https, on a domain of the workspace's allowed redirect domains or a
 *   subdomain of one; the page sends the person there afterwards.
 *
 * @example
 * ```ts
 * const body: Approval.DecisionRequest = {
 *   decision: "approve",
 *   consent: { "tgt_01JD…": { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } }
 * }
 * ```
 */
export const DecisionRequest = Schema.Struct({
  /** `approve` publishes the post's targets (at `scheduled_at`, or at once); `reject` stops them all. */
  decision: Decision,
  /** Why, in at most 1,000 characters. A rejection's reason is sent in the `post.rejected` event. */
  reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(maxReasonLength)).annotate({ description: "Why, in at most 1,000 characters. A rejection's reason is sent in the `post.rejected` event." })),
  /** TikTok consent keyed by target id (`tgt_…`), for each shortvideo `direct` target that has none yet. Needed to approve such a post (409 `consent_required` otherwise); ignored when rejecting. Naming another target is 400. */
  consent: Schema.optionalKey(Schema.Record(Schema.String, Consent).annotate({ description: "TikTok consent keyed by target id (`tgt_…`), for each shortvideo `direct` target that has none yet. Needed to approve such a post (409 `consent_required` otherwise); ignored when rejecting. Naming another target is 400." })),
  /** https address on one of the workspace's allowed redirect domains (or a subdomain); echoed back in the answer. Any other is 400 `invalid_redirect_url`. */
  redirect_url: Schema.optionalKey(Schema.String.annotate({ description: "https address on one of the workspace's allowed redirect domains (or a subdomain); echoed back in the answer. Any other is 400 `invalid_redirect_url`." }))
}).annotate({
  description: "A decision on an approval link.",
  examples: [
    {
      decision: "approve",
      consent: { tgt_01JDQX9YP981068VCD1GDJFMGT: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } },
      redirect_url: "https://example.com/approved"
    },
    { decision: "reject", reason: "The price in the caption is out of date." }
  ]
})
export type DecisionRequest = typeof DecisionRequest.Type

/**
 * The answer to a decision: the decision taken, the post detail after it (its `approval.status`
 * is `approved` or `rejected`, its targets `scheduled`, `queued` or `rejected`), and the checked
 * `redirect_url` (`null` when none was sent).
 */
export const DecisionResponse = Schema.Struct({
  /** `approve` publishes the post's targets (at `scheduled_at`, or at once); `reject` stops them all. */
  decision: Decision,
  /** The post after the decision: `approval.status` `approved` or `rejected`; targets `scheduled`, `queued` or `rejected`. */
  post: Post.annotate({ description: "The post after the decision: `approval.status` `approved` or `rejected`; targets `scheduled`, `queued` or `rejected`." }),
  /** The checked `redirect_url` of the request; `null` when none was sent. */
  redirect_url: Schema.NullOr(Schema.String).annotate({ description: "The checked `redirect_url` of the request; `null` when none was sent." })
}).annotate({ description: "The decision taken and the post after it." })
export type DecisionResponse = typeof DecisionResponse.Type
