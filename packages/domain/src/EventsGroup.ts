/**
 * The events of the contract, `/v1/events`: every event of the workspace, kept 30 days, exactly
 * as it was (or would have been) delivered, so a receiver that was down catches up by reading.
 * Needs the `webhooks:read` scope (which `webhooks:write` implies).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication, RequiredScope } from "./Auth.ts"
import { Event, EventList, ListEventsQuery } from "./Webhook.ts"

/** Events: list (filtered, newest first) and get. */
export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListEventsQuery, success: EventList })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "List events, newest first"),
    HttpApiEndpoint.get("get", "/:id", { params: { id: Schema.String }, success: Event })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "Retrieve an event")
  )
  .middleware(Authentication)
  .prefix("/v1/events")
  .annotate(
    OpenApi.Description,
    "Every event of the workspace for 30 days, with the exact body its deliveries carry."
  ) {}
