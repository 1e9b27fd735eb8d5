/**
 * The e-mail that sends a pending approval's link to the approver (`approval.notify.email`).
 * Creating or editing a post asks for it, so it sits below posts and the approval decisions.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Option } from "effect"
import { EngineConfig } from "../EngineConfig.ts"
import { approvalTokenOf, approvalUrl } from "../secrets/ApprovalToken.ts"
import type { PostAggregate } from "../store/PostStore.ts"
import { Store } from "../store/Store.ts"
import { type MailMessage, Mailer } from "./Mailer.ts"

/**
 * Sends a pending approval's link to `notify.email`, in `notify.locale`. Called after the post
 * is saved; a failure (or no `Mailer` at all) is logged and never fails the caller.
 */
export const notifyApprover = Effect.fn("approvals.notify")(
  function* (aggregate: PostAggregate) {
    const email = aggregate.post.notify?.email
    const approval = aggregate.approval
    if (email === undefined || approval === null || approval.status !== "pending") return
    const mailer = yield* Effect.serviceOption(Mailer)
    if (Option.isNone(mailer)) {
      return yield* Effect.logWarning("approval e-mail not sent: no Mailer is configured").pipe(
        Effect.annotateLogs({ post_id: aggregate.post.id })
      )
    }
    const settings = yield* EngineConfig
    const store = yield* Store
    const accounts = yield* store.getAccounts(
      aggregate.post.workspaceId,
      aggregate.targets.map((t) => t.accountId)
    )
    const message: MailMessage = {
      _tag: "ApprovalRequest",
      to: email,
      locale: aggregate.post.notify?.locale ?? "en",
      postId: aggregate.post.id,
      caption: aggregate.post.caption,
      destinations: accounts.map((a) => ({ platform: a.platform, handle: a.handle })),
      scheduledAt: aggregate.post.scheduledAt,
      url: approvalUrl(settings.publicBaseUrl, approvalTokenOf(settings.keyring, approval)),
      expiresAt: approval.expiresAt
    }
    yield* mailer.value.send(message).pipe(Effect.timeout("30 seconds"))
  },
  (effect, aggregate) =>
    effect.pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.interrupt
          : Effect.logError("approval e-mail failed", cause).pipe(Effect.annotateLogs({ post_id: aggregate.post.id }))
      )
    )
)
