/**
 * The HTTP contract of Postwire, `/v1`: one definition from which the server, the client and
 * the OpenAPI document are derived.
 *
 * @since 0.1.0
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { AccountsGroup } from "./AccountsGroup.ts"
import { AnalyticsGroup } from "./AnalyticsGroup.ts"
import { ApprovalsGroup } from "./ApprovalsGroup.ts"
import { ApiErrors } from "./Auth.ts"
import { CommentsGroup } from "./CommentsGroup.ts"
import { EventsGroup } from "./EventsGroup.ts"
import { MediaGroup } from "./MediaGroup.ts"
import { PostsGroup } from "./PostsGroup.ts"
import { ProfilesGroup } from "./ProfilesGroup.ts"
import { SystemGroup } from "./SystemGroup.ts"
import { WebhooksGroup } from "./WebhooksGroup.ts"

export { AccountsGroup } from "./AccountsGroup.ts"
export { IdempotencyHeaders } from "./Idempotency.ts"
export { MediaGroup } from "./MediaGroup.ts"
export { PostsGroup } from "./PostsGroup.ts"
export { ProfilesGroup } from "./ProfilesGroup.ts"
export { SystemGroup } from "./SystemGroup.ts"

/** Copies each parameter's schema description onto the parameter, where API viewers read it. */
const describeParameters = (spec: Record<string, unknown>): Record<string, unknown> => {
  for (const pathItem of Object.values((spec as Partial<OpenApi.OpenAPISpec>).paths ?? {})) {
    for (const operation of Object.values(pathItem) as Array<Partial<OpenApi.OpenAPISpecOperation> | undefined>) {
      for (const parameter of operation?.parameters ?? []) {
        const description = (parameter.schema as { readonly description?: unknown }).description
        if (parameter.description === undefined && typeof description === "string") {
          parameter.description = description
        }
      }
    }
  }
  return spec
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer" } })

/**
 * Documents the headers the server adds to answers: the rate-limit headers on every answer of
 * a rate-limited operation (errors included), `Retry-After` on a 429, and `Idempotent-Replayed`
 * where an `Idempotency-Key` is accepted.
 */
const describeResponseHeaders = (spec: Record<string, unknown>): Record<string, unknown> => {
  for (const pathItem of Object.values((spec as Partial<OpenApi.OpenAPISpec>).paths ?? {})) {
    for (const operation of Object.values(pathItem) as Array<Partial<OpenApi.OpenAPISpecOperation> | undefined>) {
      if (operation?.responses === undefined || operation.operationId === "health") continue
      const idempotent = (operation.parameters ?? []).some((p) => p.name === "idempotency-key")
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers: Record<string, unknown> = {
          "X-RateLimit-Limit": integerHeader("Requests allowed in the current one-minute window, for the tightest limit that applied."),
          "X-RateLimit-Remaining": integerHeader("Requests left in the current window."),
          "X-RateLimit-Reset": integerHeader("When the current window ends, in Unix seconds.")
        }
        if (status === "429") headers["Retry-After"] = integerHeader("Seconds to wait before sending again.")
        if (idempotent && status.startsWith("2")) {
          headers["Idempotent-Replayed"] = {
            description: "`true` when this answer replays an earlier request with the same `Idempotency-Key`; absent otherwise.",
            schema: { type: "string", enum: ["true"] }
          }
        }
        Object.assign(response, { headers: { ...response.headers, ...headers } })
      }
    }
  }
  return spec
}

const strictInput = { onExcessProperty: "error", errors: "all" } as const

/** The Postwire API. */
export class Api extends HttpApi.make("postwire")
  .add(PostsGroup)
  .add(AccountsGroup)
  .add(ProfilesGroup)
  .add(MediaGroup)
  .add(WebhooksGroup)
  .add(ApprovalsGroup)
  .add(SystemGroup)
  .add(EventsGroup)
  .add(CommentsGroup)
  .add(AnalyticsGroup)
  .middleware(ApiErrors)
  .annotate(HttpApi.PayloadParseOptions, strictInput)
  .annotate(HttpApi.QueryParseOptions, strictInput)
  .annotate(HttpApi.ParamsParseOptions, { errors: "all" })
  .annotate(HttpApi.HeadersParseOptions, { errors: "all" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Postwire API",
      version: "1",
      description:
        "Publish a caption plus media to many social accounts. Every error has one shape: " +
        "`{ error: { code, message, message_id, target_id?, field?, retryable, docs } }`." +
        "\n\n**Authentication**: `Authorization: Bearer <API key>`. Test keys (`svc_test_…`) post to sandbox " +
        "accounts only; live keys (`svc_live_…`) to real ones. Scopes: `posts:read`, `posts:write`, `webhooks:write`, `accounts:write`, `comments:write`, `analytics:read`." +
        "\n\n**Errors**: branch on `code`; `message` follows `Accept-Language` (`id` for Indonesian) and " +
        "`message_id` is always Indonesian. Every code is listed, with its status and retryability, at `/docs/errors`." +
        "\n\n**Rate limits**: 120 requests a minute per key, 30 a minute for `POST /v1/posts` (server defaults). " +
        "Every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix seconds); " +
        "a 429 carries `Retry-After` (seconds)." +
        "\n\n**Lists** are newest first and paged with an opaque `cursor`: follow `cursor.next` while " +
        "`cursor.has_more` is true, with the same filters. `limit` is 1 to 100 (default 25)." +
        "\n\n**Idempotency**: send `Idempotency-Key` on `POST /v1/posts`, `POST /v1/media` and the cancel and " +
        "retry actions; a repeat within 24 hours gets the first answer with `Idempotent-Replayed: true`." +
        "\n\n**Times** are ISO 8601: answers in UTC with milliseconds, requests with an offset (`Z` or `+07:00`).",
      transform: (spec) => describeResponseHeaders(describeParameters(spec))
    })
  ) {}
