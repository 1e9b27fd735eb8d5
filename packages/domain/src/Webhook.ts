/**
 * Webhook endpoints and events on the wire: the event types, the registration request, the
 * endpoint, the list, and the result of a test delivery.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ErrorItem } from "./ApiError.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Instant } from "./Timestamp.ts"

/** Every event type the service sends, in documentation order. */
export const webhookEventTypes = [
  "post.scheduled",
  "post.awaiting_approval",
  "post.approved",
  "post.rejected",
  "post.publishing",
  "post.published",
  "post.failed",
  "account.connected",
  "account.disconnected",
  "account.needs_reconnect",
  "comment.created"
] as const

/** An event type an endpoint can subscribe to. */
export const WebhookEventType = Schema.Literals(webhookEventTypes)
export type WebhookEventType = typeof WebhookEventType.Type

/** Why the service disabled an endpoint: an event exhausted its retries and nothing succeeded for 24 hours. */
export const DisabledReason = Schema.Literals(["delivery_failed"])
export type DisabledReason = typeof DisabledReason.Type

/**
 * POST /webhooks: where to deliver (a public https address) and which event types.
 *
 * @example
 * ```ts
 * const request: CreateWebhookRequest = { url: "https://hooks.example.com/postwire", events: ["post.published"] }
 * ```
 */
export const CreateWebhookRequest = Schema.Struct({
  url: Schema.String,
  events: Schema.Array(WebhookEventType).check(Schema.isMinLength(1))
})
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type

const endpointFields = {
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  active: Schema.Boolean,
  disabled_reason: Schema.NullOr(DisabledReason),
  disabled_at: Schema.NullOr(Instant),
  created_at: Instant
}

/** A webhook endpoint as GET /webhooks lists it: never with its secret. */
export const WebhookEndpoint = Schema.Struct(endpointFields)
export type WebhookEndpoint = typeof WebhookEndpoint.Type

/** The 201 response of POST /webhooks: the endpoint and its signing secret, shown this once. */
export const CreatedWebhookEndpoint = Schema.Struct({
  ...endpointFields,
  secret: Schema.String
})
export type CreatedWebhookEndpoint = typeof CreatedWebhookEndpoint.Type

/** GET /webhooks query. */
export const ListWebhooksQuery = Schema.Struct({
  limit: Schema.optionalKey(PageLimit),
  cursor: Schema.optionalKey(Schema.String)
})
export type ListWebhooksQuery = typeof ListWebhooksQuery.Type

/** A page of webhook endpoints. */
export const WebhookEndpointList = ListEnvelope(WebhookEndpoint)
export type WebhookEndpointList = typeof WebhookEndpointList.Type

/** The 200 response of DELETE /webhooks/{id}. */
export const DeletedWebhookEndpoint = Schema.Struct({
  id: Schema.String,
  deleted: Schema.Literal(true)
})
export type DeletedWebhookEndpoint = typeof DeletedWebhookEndpoint.Type

/**
 * The 200 response of POST /webhooks/{id}/test: what happened to the one synthetic delivery.
 * `status_code` is `null` when no HTTP answer came back; `error` is present when
 * `delivered` is false.
 */
export const WebhookTestResult = Schema.Struct({
  event_id: Schema.String,
  type: WebhookEventType,
  delivered: Schema.Boolean,
  status_code: Schema.NullOr(Schema.Number),
  duration_ms: Schema.Number,
  error: Schema.optionalKey(ErrorItem)
})
export type WebhookTestResult = typeof WebhookTestResult.Type
