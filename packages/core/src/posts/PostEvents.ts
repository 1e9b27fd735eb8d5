/**
 * The `post.*` events, built from the records they describe. Events go to the outbox in the
 * same transaction as the change that causes them.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import { formatInstant, Webhook } from "@postwire/domain"
import { EngineConfig } from "../EngineConfig.ts"
import { Ids } from "../ids/Ids.ts"
import { CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import * as EventSecrets from "../secrets/EventSecrets.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { PostRecord, TargetFailure, TargetRecord } from "../store/PostStore.ts"
import { renderTargetError } from "./TargetErrors.ts"

/** Every event type the service emits (the list lives with the wire schemas). */
export const eventTypes = Webhook.webhookEventTypes
export type EventType = Webhook.WebhookEventType

/** Builds an outbox event with a fresh `evt_` id. */
export const makeEvent = (
  workspaceId: Id.WorkspaceId,
  type: EventType,
  data: Readonly<Record<string, unknown>>,
  livemode: boolean,
  now: number
): Effect.Effect<OutboxEvent, never, Ids> =>
  Effect.map(Ids.use((ids) => ids.make("event")), (id) => ({ id, workspaceId, type, createdAt: now, livemode, data }))

/**
 * `post.awaiting_approval`: a post waits for a decision through its link. The link is stored
 * sealed (see {@link EventSecrets}): it is opened for deliveries and the events API only.
 */
export const awaitingApproval = (post: PostRecord, approval: { id: string; url: string; expiresAt: number }) =>
  Effect.gen(function* () {
    const provided = yield* Effect.serviceOption(CredentialsCipher)
    const sealer = Option.isSome(provided) ? provided.value : CredentialsCipher.make((yield* EngineConfig).keyring)
    return {
      post_id: post.id,
      approval_id: approval.id,
      approval_url: EventSecrets.sealLink(sealer, post.workspaceId, approval.id, approval.url),
      expires_at: formatInstant(approval.expiresAt)
    }
  })

/** `post.scheduled`: a post waits for its `scheduled_at`. */
export const scheduled = (post: PostRecord) => ({
  post_id: post.id,
  scheduled_at: post.scheduledAt === null ? null : formatInstant(post.scheduledAt)
})

/** `post.published`: one target is live. */
export const published = (post: PostRecord, target: TargetRecord) => ({
  post_id: post.id,
  target_id: target.id,
  platform: target.platform,
  permalink: target.permalink,
  published_at: target.publishedAt === null ? null : formatInstant(target.publishedAt)
})

/**
 * `post.failed`: one target failed, with the shared error shape. An event is a snapshot: its
 * error is rendered once, when the event is made (English `message`, `message_id`, `docs` under
 * the public address of that moment), and every delivery of it carries the same body.
 */
export const failed = (post: PostRecord, target: TargetRecord, failure: TargetFailure, publicBaseUrl: string) => ({
  post_id: post.id,
  target_id: target.id,
  platform: target.platform,
  error: renderTargetError(target.id, failure, "en", publicBaseUrl)
})
