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

const idParams = { id: Schema.String }

/** Webhook endpoints: create (the secret is shown once), list, delete, test. */
export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateWebhookRequest,
      success: CreatedWebhookEndpoint.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Register a webhook endpoint"),
    HttpApiEndpoint.get("list", "/", { query: ListWebhooksQuery, success: WebhookEndpointList })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "List webhook endpoints"),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedWebhookEndpoint })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Delete a webhook endpoint"),
    HttpApiEndpoint.post("test", "/:id/test", { params: idParams, success: WebhookTestResult })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Summary, "Send a synthetic event to a webhook endpoint now")
  )
  .middleware(Authentication)
  .prefix("/v1/webhooks")
  .annotate(
    OpenApi.Description,
    "Signed HTTP POST deliveries of events to your endpoints, at least once, retried for 24 hours."
  ) {}
