/**
 * The system endpoint of the contract: `GET /health`, outside `/v1` and without an API key.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"

/** Liveness. */
export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("health", "/health", {
    success: Schema.Struct({
      /** Always `ok`. */
      status: Schema.Literal("ok").annotate({ description: "Always `ok`." })
    }).annotate({ description: "The server is running." })
  })
    .annotate(OpenApi.Summary, "Health check")
    .annotate(OpenApi.Description, "Answers 200 while the server runs. No API key needed; not rate limited.")
).annotate(OpenApi.Description, "Liveness, for load balancers and orchestrators.") {}
