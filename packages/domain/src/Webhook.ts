/**
 * Webhook endpoints and events on the wire: the event types, the registration request, the
 * endpoint, the list, and the result of a test delivery.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ErrorItem } from "./ApiError.ts"
import * as ErrorDetail from "./ErrorDetail.ts"
import { AccountId, PostId } from "./Ids.ts"
import { ListEnvelope, PageLimit } from "./List.ts"
import { Instant, InstantInput } from "./Timestamp.ts"

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
  "comment.created",
  "webhook_endpoint.disabled"
] as const

/** An event type an endpoint can subscribe to. */
export const WebhookEventType = Schema.Literals(webhookEventTypes).annotate({ description: "An event type: `post.*` as a post moves through approval and publishing, `account.*` when an account's connection changes, `comment.created`." })
export type WebhookEventType = typeof WebhookEventType.Type

/**
 * Why an endpoint is disabled: `delivery_failed` (the service disabled it: a delivery used up its
 * retries and every attempt to the endpoint had failed for 3 days), or `disabled_by_request`
 * (`PATCH /v1/webhooks/{id}` with `active: false`).
 */
export const DisabledReason = Schema.Literals(["delivery_failed", "disabled_by_request"])
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
  /** `false` while the endpoint is disabled (by the service after failing deliveries, or by request); `PATCH` with `active: true` re-enables it. */
  active: Schema.Boolean.annotate({ description: "`false` while the endpoint is disabled (by the service after failing deliveries, or by request); `PATCH` with `active: true` re-enables it." }),
  /** Why the endpoint is disabled: `delivery_failed` (a delivery used up its retries and every attempt had failed for 3 days) or `disabled_by_request`; `null` while active. */
  disabled_reason: Schema.NullOr(DisabledReason).annotate({ description: "Why the endpoint is disabled: `delivery_failed` (a delivery used up its retries and every attempt had failed for 3 days) or `disabled_by_request`; `null` while active." }),
  /** When the endpoint was disabled, ISO 8601 in UTC; `null` while active. */
  disabled_at: Schema.NullOr(Instant).annotate({ description: "When the endpoint was disabled, ISO 8601 in UTC; `null` while active." }),
  /** When the endpoint was registered, ISO 8601 in UTC with milliseconds. */
  created_at: Instant.annotate({ description: "When the endpoint was registered, ISO 8601 in UTC with milliseconds." }),
  previous_secret_expires_at: Schema.NullOr(Instant).annotate({
    description:
      "While a secret rotation is in progress, when the previous secret stops signing deliveries; " +
      "until then every delivery carries a v1 signature for each secret. `null` when only one secret signs."
  })
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

/** Longest `expires_in_seconds` of a secret rotation: 7 days. */
export const maxSecretOverlapSeconds = 7 * 24 * 60 * 60

/**
 * PATCH /webhooks/{id}: any of `url` (checked like at registration), `events`, and `active`
 * (`true` re-enables a disabled endpoint; `false` disables it).
 *
 * @example
 * ```ts
 * const reenable: UpdateWebhookRequest = { active: true }
 * const move: UpdateWebhookRequest = { url: "https://hooks.example.com/v2/postwire", events: ["post.published"] }
 * ```
 */
export const UpdateWebhookRequest = Schema.Struct({
  /** A new public https address, checked like at registration. */
  url: Schema.optionalKey(
    Schema.String.annotate({ description: "A new public https address, checked like at registration." })
  ),
  /** The event types to receive from now on, replacing the current list. */
  events: Schema.optionalKey(
    Schema.Array(WebhookEventType)
      .check(Schema.isMinLength(1))
      .annotate({ description: "The event types to receive from now on, replacing the current list." })
  ),
  active: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "`true` re-enables a disabled endpoint: it receives the events created from now on. " +
        "`false` disables it; deliveries still waiting are given up (and can be redelivered)."
    })
  )
}).annotate({
  description: "The endpoint's fields to change.",
  examples: [{ active: true }, { url: "https://hooks.example.com/v2/postwire", events: ["post.published", "post.failed"] }]
})
export type UpdateWebhookRequest = typeof UpdateWebhookRequest.Type

/**
 * POST /webhooks/{id}/rotate-secret: how long the current secret keeps signing beside the new
 * one, in seconds (default 86,400, one day; `0` retires it at once; at most 7 days).
 *
 * @example
 * ```ts
 * const leaked: RotateSecretRequest = { expires_in_seconds: 0 }
 * ```
 */
export const RotateSecretRequest = Schema.Struct({
  /** Seconds the current secret keeps signing deliveries beside the new one. Default 86400 (one day); 0 retires it now. */
  expires_in_seconds: Schema.optionalKey(
    Schema.Finite.check(
      Schema.makeFilter(
        (n: number) => Number.isInteger(n) && n >= 0 && n <= maxSecretOverlapSeconds,
        {
          ...ErrorDetail.annotation(ErrorDetail.reason("integer_between", { min: 0, max: maxSecretOverlapSeconds })),
          toJsonSchema: () => ({ type: "integer", minimum: 0, maximum: maxSecretOverlapSeconds })
        }
      )
    ).annotate({
      description:
        "Seconds the current secret keeps signing deliveries beside the new one. Default 86400 (one day); 0 retires it now."
    })
  )
}).annotate({ description: "How long the current secret keeps signing beside the new one.", examples: [{ expires_in_seconds: 3600 }] })
export type RotateSecretRequest = typeof RotateSecretRequest.Type

/** Where a delivery stands: `pending` (an attempt is due), `delivered`, or `failed` (given up). */
export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed"])
export type DeliveryStatus = typeof DeliveryStatus.Type

/** Why a delivery was given up. */
export const GiveUpReason = Schema.Literals(["retries_exhausted", "endpoint_disabled"])
export type GiveUpReason = typeof GiveUpReason.Type

/** One attempt of a delivery, as the delivery log shows it. */
export const DeliveryAttempt = Schema.Struct({
  /** When the attempt started. */
  attempted_at: Instant.annotate({ description: "When the attempt started." }),
  /** How long the attempt took, in milliseconds. */
  duration_ms: Schema.Int.annotate({ description: "How long the attempt took, in milliseconds." }),
  /** The HTTP status the endpoint answered; `null` when no answer came (timeout, connection failure, refused address). */
  status_code: Schema.NullOr(Schema.Int).annotate({
    description: "The HTTP status the endpoint answered; `null` when no answer came (timeout, connection failure, refused address)."
  }),
  /** The first 1 KB (1,024 bytes) of the answer's body, as UTF-8 text; `null` when no answer came. */
  response_body: Schema.NullOr(Schema.String).annotate({
    description: "The first 1 KB (1,024 bytes) of the answer's body, as UTF-8 text; `null` when no answer came."
  }),
  /** Why the attempt failed, in the shared error shape (`webhook_delivery_failed` or `invalid_url`); `null` when it succeeded. */
  error: Schema.NullOr(ErrorItem).annotate({
    description: "Why the attempt failed, in the shared error shape (`webhook_delivery_failed` or `invalid_url`); `null` when it succeeded."
  }),
  /** `true` when the attempt was a redelivery requested through the API, `false` for the service's own attempts. */
  redelivery: Schema.Boolean.annotate({
    description: "`true` when the attempt was a redelivery requested through the API, `false` for the service's own attempts."
  })
})
export type DeliveryAttempt = typeof DeliveryAttempt.Type

const deliveryFields = {
  /** The delivery's `dlv_` id. */
  id: Schema.String.annotate({ description: "The delivery's `dlv_` id." }),
  /** The `wh_` endpoint it goes to. */
  endpoint_id: Schema.String.annotate({ description: "The `wh_` endpoint it goes to." }),
  /** The `evt_` event it carries, the `SERVICE-Event-Id` of every attempt. */
  event_id: Schema.String.annotate({ description: "The `evt_` event it carries, the `SERVICE-Event-Id` of every attempt." }),
  /** The event's type. */
  event_type: WebhookEventType.annotate({ description: "The event's type." }),
  /** `pending` while an attempt is due, `delivered` once an attempt got a 2xx, `failed` once given up. */
  status: DeliveryStatus.annotate({
    description: "`pending` while an attempt is due, `delivered` once an attempt got a 2xx, `failed` once given up."
  }),
  /** Attempts made so far, redeliveries included. */
  attempt_count: Schema.Int.annotate({ description: "Attempts made so far, redeliveries included." }),
  /** When the event was queued for this endpoint. */
  created_at: Instant.annotate({ description: "When the event was queued for this endpoint." }),
  /** When the latest attempt started; `null` before the first. */
  last_attempt_at: Schema.NullOr(Instant).annotate({ description: "When the latest attempt started; `null` before the first." }),
  /** When the next attempt is due; `null` once delivered or given up. */
  next_attempt_at: Schema.NullOr(Instant).annotate({
    description: "When the next attempt is due; `null` once delivered or given up."
  }),
  given_up_reason: Schema.NullOr(GiveUpReason).annotate({
    description:
      "Why a `failed` delivery was given up: `retries_exhausted` (its last retry failed) or `endpoint_disabled` " +
      "(the endpoint was disabled while it waited); `null` unless `failed`."
  })
}

/** A delivery as `GET /webhooks/{id}/deliveries` lists it, with its latest attempt. */
export const WebhookDelivery = Schema.Struct({
  ...deliveryFields,
  /** The latest attempt; `null` before the first. */
  last_attempt: Schema.NullOr(DeliveryAttempt).annotate({ description: "The latest attempt; `null` before the first." })
})
export type WebhookDelivery = typeof WebhookDelivery.Type

/** A delivery with its attempts, newest first: `GET /webhooks/{id}/deliveries/{delivery_id}` and redeliver. */
export const WebhookDeliveryDetail = Schema.Struct({
  ...deliveryFields,
  /** Every attempt, newest first (the 100 latest when there were more; `attempt_count` counts them all). */
  attempts: Schema.Array(DeliveryAttempt).annotate({
    description: "Every attempt, newest first (the 100 latest when there were more; `attempt_count` counts them all)."
  })
})
export type WebhookDeliveryDetail = typeof WebhookDeliveryDetail.Type

/** GET /webhooks/{id}/deliveries query: filters combine; `from` inclusive, `to` exclusive, on `created_at`. */
export const ListDeliveriesQuery = Schema.Struct({
  /** Only deliveries in this status. */
  status: Schema.optionalKey(DeliveryStatus.annotate({ description: "Only deliveries in this status." })),
  /** Only deliveries of this event type. */
  event_type: Schema.optionalKey(WebhookEventType.annotate({ description: "Only deliveries of this event type." })),
  /** Only deliveries created at or after this instant. */
  from: Schema.optionalKey(InstantInput.annotate({ description: "Only deliveries created at or after this instant." })),
  /** Only deliveries created before this instant. */
  to: Schema.optionalKey(InstantInput.annotate({ description: "Only deliveries created before this instant." })),
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListDeliveriesQuery = typeof ListDeliveriesQuery.Type

/** A page of deliveries, newest first. */
export const WebhookDeliveryList = ListEnvelope(WebhookDelivery)
export type WebhookDeliveryList = typeof WebhookDeliveryList.Type

/**
 * An event as `GET /events` shows it: exactly the body delivered (or that would have been
 * delivered) to a subscribed endpoint.
 */
export const Event = Schema.Struct({
  /** The `evt_` id, the `SERVICE-Event-Id` of its deliveries. */
  id: Schema.String.annotate({ description: "The `evt_` id, the `SERVICE-Event-Id` of its deliveries." }),
  /** The event type. */
  type: WebhookEventType.annotate({ description: "The event type." }),
  /** When the event happened. */
  created_at: Instant.annotate({ description: "When the event happened." }),
  /** `true` when a live (non-sandbox) account is involved. */
  livemode: Schema.Boolean.annotate({ description: "`true` when a live (non-sandbox) account is involved." }),
  /** The event's payload; its shape depends on `type`. */
  data: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "The event's payload; its shape depends on `type`." })
})
export type Event = typeof Event.Type

/** GET /events query: `type` may repeat; `from` inclusive, `to` exclusive, on `created_at`. */
export const ListEventsQuery = Schema.Struct({
  /** Only events of these types; repeat the parameter for several. */
  type: Schema.optionalKey(
    Schema.Array(WebhookEventType).annotate({ description: "Only events of these types; repeat the parameter for several." })
  ),
  /** Only events created at or after this instant. */
  from: Schema.optionalKey(InstantInput.annotate({ description: "Only events created at or after this instant." })),
  /** Only events created before this instant. */
  to: Schema.optionalKey(InstantInput.annotate({ description: "Only events created before this instant." })),
  /** Only events about this post. */
  post_id: Schema.optionalKey(PostId.annotate({ description: "Only events about this post." })),
  /** Only events about this account. */
  account_id: Schema.optionalKey(AccountId.annotate({ description: "Only events about this account." })),
  limit: Schema.optionalKey(PageLimit),
  /** `cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`). */
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "`cursor.next` of the previous page; valid 24 hours (else 400 `invalid_cursor`)." }))
})
export type ListEventsQuery = typeof ListEventsQuery.Type

/** A page of events, newest first. */
export const EventList = ListEnvelope(Event)
export type EventList = typeof EventList.Type
