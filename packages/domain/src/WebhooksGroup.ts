/**
 * The webhook endpoints of the contract, `/v1/webhooks`: register, list, read, change, remove,
 * roll the secret, send a test event, and read and replay the delivery log. Reading needs the
 * `webhooks:read` scope (which `webhooks:write` implies); every change needs `webhooks:write`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication, RequiredScope } from "./Auth.ts"
import {
  CreatedWebhookEndpoint,
  CreateWebhookRequest,
  DeletedWebhookEndpoint,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RotateSecretRequest,
  UpdateWebhookRequest,
  WebhookDeliveryDetail,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookTestResult
} from "./Webhook.ts"

const idParams = { id: Schema.String }
const deliveryParams = { id: Schema.String, delivery_id: Schema.String }

// The optional `Idempotency-Key` of a redelivery (declared here: `Api.ts` imports this group).
const idempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)))
})

/** Webhook endpoints: create (the secret is shown once), list, get, update, rotate the secret, delete, test, deliveries. */
export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateWebhookRequest,
      success: CreatedWebhookEndpoint.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Register a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Registers an endpoint for the given event types; the answer carries its signing `secret`, shown this once. Each " +
          "delivery is a signed POST (`SERVICE-Signature: t=…,v1=…`, HMAC-SHA256 of `{t}.{body}` under the secret) " +
          "retried 8 times over about 24 hours until a 2xx; deduplicate on `SERVICE-Event-Id`. Scope `webhooks:write`."
      ),
    HttpApiEndpoint.get("list", "/", { query: ListWebhooksQuery, success: WebhookEndpointList })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "List webhook endpoints"),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: WebhookEndpoint })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "Retrieve a webhook endpoint"),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdateWebhookRequest, success: WebhookEndpoint })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Change a webhook endpoint's url or events, or re-enable it"),
    HttpApiEndpoint.post("rotateSecret", "/:id/rotate-secret", {
      params: idParams,
      // The body is optional: an empty one takes the defaults.
      payload: [RotateSecretRequest, Schema.Null],
      success: CreatedWebhookEndpoint
    })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Roll a webhook endpoint's signing secret, the old one signing beside it for a while"),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedWebhookEndpoint })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Removes an endpoint and drops its pending deliveries; an attempt already in flight may still arrive. Scope " +
          "`webhooks:write`."
      ),
    HttpApiEndpoint.post("test", "/:id/test", { params: idParams, success: WebhookTestResult })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Send a synthetic event to a webhook endpoint now"),
    HttpApiEndpoint.get("listDeliveries", "/:id/deliveries", {
      params: idParams,
      query: ListDeliveriesQuery,
      success: WebhookDeliveryList
    })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "List an endpoint's deliveries, newest first"),
    HttpApiEndpoint.get("getDelivery", "/:id/deliveries/:delivery_id", {
      params: deliveryParams,
      success: WebhookDeliveryDetail
    })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "Retrieve a delivery with every attempt"),
    HttpApiEndpoint.post("redeliver", "/:id/deliveries/:delivery_id/redeliver", {
      params: deliveryParams,
      headers: idempotencyHeaders,
      success: WebhookDeliveryDetail
    })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Send a delivery's event again now, whatever its status")
  )
  .middleware(Authentication)
  .prefix("/v1/webhooks")
  .annotate(
    OpenApi.Description,
    "Signed HTTP POST deliveries of events to your endpoints, at least once, retried for 24 hours, " +
      "with a delivery log kept for 30 days."
  ) {}
