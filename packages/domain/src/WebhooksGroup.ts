/**
 * The webhook endpoints of the contract, `/v1/webhooks`: register, list, remove, and send a
 * test event. Every endpoint needs the `webhooks:write` scope.
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
  ListWebhooksQuery,
  WebhookEndpointList,
  WebhookTestResult
} from "./Webhook.ts"

const idParams = {
  /** The endpoint's id, `wh_…`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({ description: "The endpoint's id, `wh_…`. An unknown id, or one of another workspace, is 404 `not_found`." })
}

/** Webhook endpoints: create (the secret is shown once), list, delete, test. */
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
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "List webhook endpoints")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's webhook endpoints, newest first, without their secrets. Scope `webhooks:write`."
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
        "Sends one synthetic event of the endpoint's first subscribed type now, signed like a real one, with " +
          "`\"test\": true` in its body, and reports what happened. Always 200: the outcome is in `delivered`. Nothing is " +
          "stored or retried, and a disabled endpoint can be tested too. Scope `webhooks:write`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/webhooks")
  .annotate(
    OpenApi.Description,
    "Signed HTTP POST deliveries of events to your endpoints, at least once, retried for 24 hours."
  ) {}
