/**
 * The handlers of `/v1/events`: list and read the workspace's events.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { type Caller, EventLog } from "@postwire/core"
import { Api, CurrentKey, Ids } from "@postwire/domain"
import { respond } from "./Failures.ts"

const caller: Effect.Effect<Caller, never, CurrentKey> = Effect.gen(function* () {
  const key = yield* CurrentKey
  return { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind, approvalLinks: key.approvalLinks }
})

/** The `events` group of the public API. */
export const EventsHandlers = HttpApiBuilder.group(Api, "events", (handlers) =>
  handlers
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        return yield* respond(EventLog.listEvents(yield* caller, query))
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(EventLog.getEvent(yield* caller, Ids.unchecked("event", params.id)))
      })
    )
)
