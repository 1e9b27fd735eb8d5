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

const endpointId = Schema.String.annotate({
  description: "The endpoint's id, `wh_…`. An unknown id, or one of another workspace, is 404 `not_found`."
})
const idParams = {
  /** The endpoint's id, `wh_…`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: endpointId
}
const deliveryParams = {
  /** The endpoint's id, `wh_…`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: endpointId,
  /** The delivery's id, `dlv_…`, of this endpoint; any other is 404 `not_found`. */
  delivery_id: Schema.String.annotate({ description: "The delivery's id, `dlv_…`, of this endpoint; any other is 404 `not_found`." })
}

// The optional `Idempotency-Key` of a redelivery (declared here: `Api.ts` imports this group).
const idempotencyHeaders = Schema.Struct({
  /** Any unique string (at most 255 characters): the same key within 24 hours answers the first redelivery again instead of sending another. */
  "idempotency-key": Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)).annotate({
      description:
        "Any unique string (at most 255 characters): the same key within 24 hours answers the first redelivery again instead of sending another."
    })
  )
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
      .annotate(OpenApi.Summary, "List webhook endpoints")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's webhook endpoints, newest first, without their secrets, each with whether it is active and why not. Scope `webhooks:read`."
      ),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: WebhookEndpoint })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "Retrieve a webhook endpoint")
      .annotate(
        OpenApi.Description,
        "Retrieves an endpoint without its secret: its events, whether it is active, and when and why it was disabled. Scope `webhooks:read`."
      ),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdateWebhookRequest, success: WebhookEndpoint })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Change a webhook endpoint's url or events, or re-enable it")
      .annotate(
        OpenApi.Description,
        "Changes any of `url` (checked like at registration), `events` and `active`. `active: true` re-enables a disabled endpoint: it receives the events created from then on, and deliveries given up meanwhile stay in the log for redelivery. `active: false` disables it. Answers the endpoint. Scope `webhooks:write`."
      ),
    HttpApiEndpoint.post("rotateSecret", "/:id/rotate-secret", {
      params: idParams,
      // The body is optional: an empty one takes the defaults.
      payload: [RotateSecretRequest, Schema.Null],
      success: CreatedWebhookEndpoint
    })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Roll a webhook endpoint's signing secret, the old one signing beside it for a while")
      .annotate(
        OpenApi.Description,
        "Makes a new signing secret, shown in this answer only. Until `previous_secret_expires_at` (`expires_in_seconds`, one day by default, `0` for at once) each delivery carries a v1 signature for both secrets, so receivers can switch without losing events. The body may be empty. Scope `webhooks:write`."
      ),
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
      .annotate(OpenApi.Summary, "Send a synthetic event to a webhook endpoint now")
      .annotate(
        OpenApi.Description,
        "Sends one synthetic event of the endpoint's first subscribed type now, signed like a real one, with `\"test\": true` in its body, and reports what happened. Always 200: the outcome is in `delivered`. Nothing is stored or retried, and a disabled endpoint can be tested too. Scope `webhooks:write`."
      ),
    HttpApiEndpoint.get("listDeliveries", "/:id/deliveries", {
      params: idParams,
      query: ListDeliveriesQuery,
      success: WebhookDeliveryList
    })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "List an endpoint's deliveries, newest first")
      .annotate(
        OpenApi.Description,
        "Lists the deliveries of the last 30 days to this endpoint, newest first, each with its latest attempt, filtered by `status`, `event_type` and creation time. Scope `webhooks:read`."
      ),
    HttpApiEndpoint.get("getDelivery", "/:id/deliveries/:delivery_id", {
      params: deliveryParams,
      success: WebhookDeliveryDetail
    })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "Retrieve a delivery with every attempt")
      .annotate(
        OpenApi.Description,
        "Retrieves one delivery with its newest 100 attempts, newest first: when, how long, the status code and the first 1 KB of the answer (`attempt_count` counts all). Scope `webhooks:read`."
      ),
    HttpApiEndpoint.post("redeliver", "/:id/deliveries/:delivery_id/redeliver", {
      params: deliveryParams,
      headers: idempotencyHeaders,
      success: WebhookDeliveryDetail
    })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Send a delivery's event again now, whatever its status")
      .annotate(
        OpenApi.Description,
        "Sends the delivery's event to the endpoint again now, with the same body and `SERVICE-Event-Id`, whatever its status and even when the endpoint is disabled, and answers the delivery with its attempts, the redelivery newest. A 2xx marks it `delivered` and cancels its remaining retries; a failure changes only the log. Accepts `Idempotency-Key`. Scope `webhooks:write`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/webhooks")
  .annotate(
    OpenApi.Description,
    "Signed HTTP POST deliveries of events to your endpoints, at least once, retried for 24 hours, " +
      "with a delivery log kept for 30 days."
  ) {}
