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
export const WebhookEventType = Schema.Literals(webhookEventTypes).annotate({ description: "An event type: `post.*` as a post moves through approval and publishing, `account.*` when an account's connection changes, `comment.created`." })
export type WebhookEventType = typeof WebhookEventType.Type

/** Why the service disabled an endpoint: an event exhausted its retries and nothing succeeded for 24 hours. */
export const DisabledReason = Schema.Literals(["delivery_failed"]).annotate({ description: "Why the endpoint was disabled: `delivery_failed` (an event exhausted its 8 retries and no delivery had succeeded for 24 hours)." })
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
  /** Where to POST events: a public https address, at most 2,048 characters; surrounding whitespace is dropped. Loopback, private, link-local and other reserved addresses, or a host that does not resolve, are 400 `invalid_url`. */
  url: Schema.String.annotate({ description: "Where to POST events: a public https address, at most 2,048 characters; surrounding whitespace is dropped. Loopback, private, link-local and other reserved addresses, or a host that does not resolve, are 400 `invalid_url`." }),
  /** The event types to deliver, at least one, each at most once. The endpoint receives events created from its registration on. */
  events: Schema.Array(WebhookEventType).check(Schema.isMinLength(1)).annotate({ description: "The event types to deliver, at least one, each at most once. The endpoint receives events created from its registration on." })
}).annotate({
  description: "A webhook endpoint to register.",
  examples: [{ url: "https://hooks.example.com/postwire", events: ["post.published", "post.failed", "account.needs_reconnect"] }]
})
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type

const endpointFields = {
  /** Unique identifier of the endpoint, `wh_…`. */
  id: Schema.String.annotate({ description: "Unique identifier of the endpoint, `wh_…`." }),
  /** The https address events are POSTed to. */
  url: Schema.String.annotate({ description: "The https address events are POSTed to." }),
  /** The event types delivered to it. */
  events: Schema.Array(WebhookEventType).annotate({ description: "The event types delivered to it." }),
  /** `false` once the service disabled the endpoint after failing deliveries; a disabled endpoint is not re-enabled (register it again). */
  active: Schema.Boolean.annotate({ description: "`false` once the service disabled the endpoint after failing deliveries; a disabled endpoint is not re-enabled (register it again)." }),
  /** Why the endpoint was disabled; `null` while active. */
  disabled_reason: Schema.NullOr(DisabledReason).annotate({ description: "Why the endpoint was disabled; `null` while active." }),
  /** When the endpoint was disabled, ISO 8601 in UTC; `null` while active. */
  disabled_at: Schema.NullOr(Instant).annotate({ description: "When the endpoint was disabled, ISO 8601 in UTC; `null` while active." }),
  /** When the endpoint was registered, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the endpoint was registered, ISO 8601 in UTC with milliseconds." })
}

/** A webhook endpoint as GET /webhooks lists it: never with its secret. */
export const WebhookEndpoint = Schema.Struct(endpointFields).annotate({ description: "A registered webhook endpoint (its secret is never shown again)." })
export type WebhookEndpoint = typeof WebhookEndpoint.Type

/** The 201 response of POST /webhooks: the endpoint and its signing secret, shown this once. */
export const CreatedWebhookEndpoint = Schema.Struct({
  ...endpointFields,
  /** The signing secret, `whsec_…`: verify each delivery's `SERVICE-Signature` with it. Shown only in this response; store it now. */
  secret: Schema.String.annotate({ description: "The signing secret, `whsec_…`: verify each delivery's `SERVICE-Signature` with it. Shown only in this response; store it now." })
}).annotate({ description: "The endpoint just registered, with its signing secret." })
export type CreatedWebhookEndpoint = typeof CreatedWebhookEndpoint.Type

/** GET /webhooks query. */
export const ListWebhooksQuery = Schema.Struct({
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListWebhooksQuery = typeof ListWebhooksQuery.Type

/** A page of webhook endpoints. */
export const WebhookEndpointList = ListEnvelope(WebhookEndpoint)
export type WebhookEndpointList = typeof WebhookEndpointList.Type

/** The 200 response of DELETE /webhooks/{id}. */
export const DeletedWebhookEndpoint = Schema.Struct({
  /** The id of the endpoint removed, `wh_…`. */
  id: Schema.String.annotate({ description: "The id of the endpoint removed, `wh_…`." }),
  /** Always `true`. */
  deleted: Schema.Literal(true).annotate({ description: "Always `true`." })
}).annotate({ description: "The endpoint removed; its pending deliveries are dropped." })
export type DeletedWebhookEndpoint = typeof DeletedWebhookEndpoint.Type

/**
 * The 200 response of POST /webhooks/{id}/test: what happened to the one synthetic delivery.
 * `status_code` is `null` when no HTTP answer came back; `error` is present when
 * `delivered` is false.
 */
export const WebhookTestResult = Schema.Struct({
  /** Id of the synthetic event, `evt_…`, sent as `SERVICE-Event-Id`. The event is not stored or retried. */
  event_id: Schema.String.annotate({ description: "Id of the synthetic event, `evt_…`, sent as `SERVICE-Event-Id`. The event is not stored or retried." }),
  /** Type of the synthetic event: the endpoint's first subscribed type. Its body carries `"test": true` and placeholder ids. */
  type: WebhookEventType.annotate({ description: "Type of the synthetic event: the endpoint's first subscribed type. Its body carries `\"test\": true` and placeholder ids." }),
  /** Whether the endpoint answered 2xx within 10 seconds. */
  delivered: Schema.Boolean.annotate({ description: "Whether the endpoint answered 2xx within 10 seconds." }),
  /** The endpoint's HTTP status; `null` when no answer came back (refused address, connection failure, timeout). */
  status_code: Schema.NullOr(Schema.Int).annotate({ description: "The endpoint's HTTP status; `null` when no answer came back (refused address, connection failure, timeout)." }),
  /** How long the attempt took, in milliseconds. */
  duration_ms: Schema.Int.annotate({ description: "How long the attempt took, in milliseconds." }),
  /** Why the delivery failed, in the shared error shape (`webhook_delivery_failed`, or `invalid_url` when the address is now refused). Present only when `delivered` is false. */
  error: Schema.optionalKey(ErrorItem.annotate({ description: "Why the delivery failed, in the shared error shape (`webhook_delivery_failed`, or `invalid_url` when the address is now refused). Present only when `delivered` is false." }))
}).annotate({ description: "What happened to the one synthetic delivery." })
export type WebhookTestResult = typeof WebhookTestResult.Type
