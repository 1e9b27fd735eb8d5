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
      .annotate(OpenApi.Summary, "List events, newest first")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's events of the last 30 days, newest first, filtered by `type` (repeatable), creation time, " +
          "`post_id` and `account_id`; each has exactly the body its deliveries carry. A receiver that was down catches up " +
          "here. Scope `webhooks:read`."
      ),
    HttpApiEndpoint.get("get", "/:id", {
      params: {
        /** The event's id, `evt_…` (the `SERVICE-Event-Id` of its deliveries). An unknown id, or one of another workspace, is 404 `not_found`. */
        id: Schema.String.annotate({
          description:
            "The event's id, `evt_…` (the `SERVICE-Event-Id` of its deliveries). An unknown id, or one of another workspace, is 404 `not_found`."
        })
      },
      success: Event
    })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Summary, "Retrieve an event")
      .annotate(
        OpenApi.Description,
        "Retrieves one event of the last 30 days with the exact body its deliveries carry. Scope `webhooks:read`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/events")
  .annotate(
    OpenApi.Description,
    "Every event of the workspace for 30 days, with the exact body its deliveries carry."
  ) {}
