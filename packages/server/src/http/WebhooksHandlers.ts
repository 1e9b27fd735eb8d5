/**
 * The handlers of `/v1/webhooks`: register, list, delete and test endpoints. Each decodes
 * (done by the contract), authorizes (middleware), calls a use-case, encodes.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { type Caller, Webhooks } from "@postwire/core"
import { Api, CurrentKey } from "@postwire/domain"
import { respond } from "./Failures.ts"
import { requestLocale } from "./Locale.ts"

const caller: Effect.Effect<Caller, never, CurrentKey> = Effect.gen(function* () {
  const key = yield* CurrentKey
  return { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind }
})

/** The `webhooks` group of the public API; its test endpoint sends with the server's `DeliveryServices`. */
export const WebhooksHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers
    .handle("create", ({ payload }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.createEndpoint(yield* caller, payload))
      })
    )
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.listEndpoints(yield* caller, query))
      })
    )
    .handle("delete", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.deleteEndpoint(yield* caller, params.id))
      })
    )
    .handle("test", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.testEndpoint(yield* caller, params.id, yield* requestLocale))
      })
    )
)
