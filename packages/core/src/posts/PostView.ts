/**
 * Records to wire shapes: what a post looks like to API users.
 *
 * @since 0.1.0
 */
import { formatInstant, type Locale, type Post } from "@postwire/domain"
import { approvalTokenOf, approvalUrl } from "../approvals/ApprovalToken.ts"
import type { EngineSettings } from "../EngineConfig.ts"
import type { PostAggregate, TargetRecord } from "../store/Records.ts"
import { renderTargetError } from "./TargetErrors.ts"

/**
 * The consent that a target publishes with: given with the request (`key:…`) or through the
 * post's current approval. Consent from an earlier link is asked for again after a caption
 * change, so it is no longer shown.
 */
const consentInForce = (target: TargetRecord, approvalId: string | null): Post.Consent | undefined => {
  const given = target.consent
  if (given === null) return undefined
  return given.givenBy.startsWith("approval:") && given.givenBy !== `approval:${approvalId}` ? undefined : given.consent
}

/** A target's options, with the consent in force wherever it was given (request or approval). */
const optionsView = (target: TargetRecord, approvalId: string | null): Post.TargetOptions => {
  const { shortvideo, ...others } = target.options
  if (shortvideo === undefined) return target.options
  const consent = consentInForce(target, approvalId)
  return { ...others, shortvideo: { mode: shortvideo.mode, ...(consent === undefined ? {} : { consent }) } }
}

/**
 * A target as the API shows it; its error, stored as data, is rendered now: in the caller's
 * language, the current catalog's words, with its docs address under `publicBaseUrl`.
 * `approvalId` is the post's current approval, whose consent is shown in
 * `options.shortvideo.consent`.
 */
export const targetView = (
  target: TargetRecord,
  locale: Locale,
  approvalId: string | null,
  publicBaseUrl: string
): Post.Target => ({
  id: target.id,
  account_id: target.accountId,
  platform: target.platform,
  status: target.status,
  permalink: target.permalink,
  published_at: target.publishedAt === null ? null : formatInstant(target.publishedAt),
  error: target.error === null ? null : renderTargetError(target.id, target.error, locale, publicBaseUrl),
  attempts: target.attempts,
  options: optionsView(target, approvalId)
})

/** The approval of a post as the API shows it, with its link. */
export const approvalView = (aggregate: PostAggregate, settings: EngineSettings, now: number): Post.Approval | null => {
  const approval = aggregate.approval
  if (approval === null) return null
  const status = approval.status === "pending" && approval.expiresAt <= now ? "expired" : approval.status
  return {
    id: approval.id,
    status,
    url: approvalUrl(settings.publicBaseUrl, approvalTokenOf(settings.keyring, approval)),
    expires_at: formatInstant(approval.expiresAt),
    decided_at: approval.decidedAt === null ? null : formatInstant(approval.decidedAt)
  }
}

/** The post detail. */
export const postView = (aggregate: PostAggregate, settings: EngineSettings, locale: Locale, now: number): Post.Post => {
  const { post } = aggregate
  return {
    id: post.id,
    profile_id: post.profileId,
    caption: post.caption,
    media: post.media,
    status: post.status,
    scheduled_at: post.scheduledAt === null ? null : formatInstant(post.scheduledAt),
    ai_generated: post.aiGenerated,
    approval: approvalView(aggregate, settings, now),
    targets: aggregate.targets.map((t) => targetView(t, locale, aggregate.approval?.id ?? null, settings.publicBaseUrl)),
    created_at: formatInstant(post.createdAt),
    updated_at: formatInstant(post.updatedAt)
  }
}
