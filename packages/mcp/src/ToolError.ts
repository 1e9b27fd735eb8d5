/**
 * What a failed tool call returns: the API's one error object, `{ "error": { code, message, … } }`,
 * with the HTTP status and, on a 429, how long to wait. The MCP answer carries it as JSON text
 * with `isError: true`, so an agent reads the same fields a program reads from the API.
 *
 * @since 0.1.0
 */
import type { PostwireClientError } from "@postwire/client"
import { docsUrl, ErrorCatalog, type ErrorCode, ErrorObject, type Locale, renderMessage } from "@postwire/domain"
import { Schema } from "effect"

/**
 * The failure of every tool: the API's error object plus what an agent needs to act on it.
 *
 * @since 0.1.0
 */
export const ToolError = Schema.Struct({
  error: Schema.Struct({
    ...ErrorObject.fields,
    status: Schema.Number.annotate({
      description: "HTTP status of the API's answer (or of the catalog entry, for an error found by the tool server)."
    }),
    retry_after_seconds: Schema.optionalKey(Schema.Number).annotate({
      description: "On a 429: seconds to wait before calling again with the same arguments."
    }),
    request_id: Schema.optionalKey(Schema.String).annotate({
      description: "The API's request id (X-Request-Id), to quote when asking for help."
    })
  }).annotate({ description: "The API's error object: code, message in the caller's language, field, retryable, docs." })
}).annotate({ identifier: "ToolError", description: "A failed call, in the API's one error shape." })

/** @since 0.1.0 */
export type ToolError = typeof ToolError.Type

/**
 * Where the words and links of an error found by the tool server itself come from.
 *
 * @since 0.1.0
 */
export interface ErrorContext {
  readonly locale: Locale
  /** The address whose `/docs/errors` page documents the codes. */
  readonly docsBaseUrl: string
}

/**
 * An error the tool server finds before calling the API, rendered from the catalog like the
 * API renders its own.
 *
 * @example
 * ```ts
 * import { ToolError } from "@postwire/mcp"
 *
 * const refused = ToolError.catalogError("approval_required", { locale: "en", docsBaseUrl: "https://api.example.com" }, {
 *   field: "approval.mode"
 * })
 * ```
 *
 * @since 0.1.0
 */
export const catalogError = (
  code: ErrorCode,
  context: ErrorContext,
  options: { readonly field?: string | undefined; readonly details?: Parameters<typeof renderMessage>[2] } = {}
): ToolError => {
  const entry = ErrorCatalog[code]
  return {
    error: {
      code,
      message: renderMessage(code, context.locale, options.details),
      message_id: renderMessage(code, "id", options.details),
      ...(options.field === undefined ? {} : { field: options.field }),
      retryable: entry.retryable,
      docs: docsUrl(context.docsBaseUrl, code),
      status: entry.status
    }
  }
}

/**
 * A failed client call as a tool error: the API's error object as it answered it, or, when no
 * usable answer arrived, `api_unreachable` (retryable) or `unexpected_response`.
 *
 * @since 0.1.0
 */
export const fromClientError = (error: PostwireClientError, context: ErrorContext): ToolError => {
  if (error._tag === "PostwireConnectionError") {
    return catalogError(error.kind === "network" ? "api_unreachable" : "unexpected_response", context)
  }
  return {
    error: {
      ...error.error,
      status: error.status,
      ...(error.retryAfter === undefined ? {} : { retry_after_seconds: error.retryAfter }),
      ...(error.requestId === undefined ? {} : { request_id: error.requestId })
    }
  }
}
