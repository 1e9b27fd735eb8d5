/**
 * What the post use-cases return: the stored post as a domain value, with what only the engine
 * can decide about it at the moment it is read (whether its approval link has expired, the
 * link's token, which consent is in force). No words, no language, no addresses: the server
 * (and the embedded engine) render the wire post from it, in the caller's language and under the
 * public URL of now.
 *
 * @since 0.1.0
 */
import type { Post } from "@postwire/domain"
import { approvalTokenOf } from "../secrets/ApprovalToken.ts"
import type { Keyring } from "../secrets/Keyring.ts"
import type { PostAggregate, TargetRecord } from "../store/PostStore.ts"

/** A post's approval link as of a read: `expired` once a pending link is past its expiry; the token is the link's last part. */
export interface ApprovalLink {
  readonly status: "pending" | "approved" | "rejected" | "expired"
  readonly token: string
}

/**
 * A post as a use-case returns it: the stored aggregate (post, targets in order, approval
 * record), and its approval link as of the read (`null` without an approval).
 */
export interface PostRead extends PostAggregate {
  readonly approvalLink: ApprovalLink | null
}

/** What `retryPost` returns: the post after the retry and the targets it queued again, in position order. */
export interface RetryResult {
  readonly post: PostRead
  readonly retried: ReadonlyArray<TargetRecord>
}

/** The aggregate as read at `now`, its approval's link token found with `keyring`. */
export const postRead = (aggregate: PostAggregate, keyring: Keyring, now: number): PostRead => {
  const approval = aggregate.approval
  return {
    post: aggregate.post,
    targets: aggregate.targets,
    approval,
    approvalLink:
      approval === null
        ? null
        : {
            status: approval.status === "pending" && approval.expiresAt <= now ? "expired" : approval.status,
            token: approvalTokenOf(keyring, approval)
          }
  }
}

/**
 * The consent that a target publishes with: given with the request (`key:…`) or through the
 * post's current approval. Consent from an earlier link is asked for again after a caption
 * change, so it is no longer in force.
 */
export const consentInForce = (target: TargetRecord, approvalId: string | null): Post.Consent | undefined => {
  const given = target.consent
  if (given === null) return undefined
  return given.givenBy.startsWith("approval:") && given.givenBy !== `approval:${approvalId}` ? undefined : given.consent
}

/**
 * A target's options, with the consent in force wherever it was given (request or approval)
 * under its platform's options' `consent` key.
 */
export const optionsInForce = (target: TargetRecord, approvalId: string | null): Post.TargetOptions => {
  const own = (target.options as Readonly<Record<string, unknown>>)[target.platform]
  // Only a target with a consent recorded (its platform's `needsConsent`) shows the one in force.
  if (target.consent === null || typeof own !== "object" || own === null || Array.isArray(own)) return target.options
  const { consent: _given, ...rest } = own as Readonly<Record<string, unknown>>
  const consent = consentInForce(target, approvalId)
  return { ...target.options, [target.platform]: { ...rest, ...(consent === undefined ? {} : { consent }) } }
}
