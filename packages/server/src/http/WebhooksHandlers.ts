/**
 * The handlers of `/v1/webhooks`: register, list, read, change, roll the secret of, delete and
 * test endpoints, and read and replay their delivery log. Each decodes (done by the contract),
 * authorizes (middleware), calls a use-case, encodes.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { type Caller, DeliveryLog, Webhooks } from "@postwire/core"
import { Api, CurrentKey, Ids, Webhook } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { respond } from "./Failures.ts"
import { idempotent } from "./Idempotency.ts"
import { requestLocale } from "./Locale.ts"
import * as Views from "./Views.ts"

const caller: Effect.Effect<Caller, never, CurrentKey> = Effect.gen(function* () {
  const key = yield* CurrentKey
  return { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind, approvalLinks: key.approvalLinks }
})

/** The `webhooks` group of the public API; the test and redeliver endpoints send with the server's `DeliveryServices`. */
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
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.getEndpoint(yield* caller, Ids.unchecked("webhook", params.id)))
      })
    )
    .handle("update", ({ params, payload }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.updateEndpoint(yield* caller, Ids.unchecked("webhook", params.id), payload))
      })
    )
    .handle("rotateSecret", ({ params, payload }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.rotateSecret(yield* caller, Ids.unchecked("webhook", params.id), payload ?? {}))
      })
    )
    .handle("delete", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Webhooks.deleteEndpoint(yield* caller, Ids.unchecked("webhook", params.id)))
      })
    )
    .handle("test", ({ params }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Webhooks.testEndpoint(yield* caller, Ids.unchecked("webhook", params.id)), (r) => Views.webhookTest(r, locale, publicUrl)))
      })
    )
    .handle("listDeliveries", ({ params, query }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(
          Effect.map(DeliveryLog.listDeliveries(yield* caller, Ids.unchecked("webhook", params.id), query), (p) => Views.deliveryList(p, locale, publicUrl))
        )
      })
    )
    .handle("getDelivery", ({ params }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(
          Effect.map(DeliveryLog.getDelivery(yield* caller, Ids.unchecked("webhook", params.id), Ids.unchecked("delivery", params.delivery_id)), (d) => Views.deliveryDetail(d, locale, publicUrl))
        )
      })
    )
    .handle("redeliver", ({ params, headers }) =>
      Effect.gen(function* () {
        const who = yield* caller
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        const redelivered = DeliveryLog.redeliver(who, Ids.unchecked("webhook", params.id), Ids.unchecked("delivery", params.delivery_id))
        return yield* respond(Effect.map(redelivered, (d) => Views.deliveryDetail(d, locale, publicUrl))).pipe(
          idempotent({
            key: headers["idempotency-key"],
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", `/v1/webhooks/${params.id}/deliveries/${params.delivery_id}/redeliver`],
            status: 200,
            schema: Webhook.WebhookDeliveryDetail,
            // The event is sent to the receiver: no transaction is held across that call.
            atomic: false
          })
        )
      })
    )
)
