/**
 * Who a tool call acts for: the API key and language of the call, and a client of the API made
 * with them. On stdio they are the ones the tool server was started with; over HTTP they are
 * the request's bearer token and `Accept-Language`. Every tool is an API call with that key, so
 * scopes, workspaces, rate limits, quotas and approval rules hold for agents as for any client;
 * and every call asks the API to hide approval links (`Postwire-Approval-Links: hidden`).
 *
 * @since 0.1.0
 */
import { PostwireClient, type PostwireClientService } from "@postwire/client"
import { approvalLinksHeader, type Locale, localeFromAcceptLanguage } from "@postwire/domain"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpServerRequest } from "effect/http"
import { catalogError, type ErrorContext, type ToolError } from "./ToolError.ts"

/**
 * The caller of one tool call.
 *
 * @since 0.1.0
 */
export interface Caller extends ErrorContext {
  /**
   * A client of the API with the caller's key. With an `idempotencyKey`, every POST and PATCH
   * it sends carries that key (the same on each attempt).
   */
  readonly client: (idempotencyKey?: string) => Effect.Effect<PostwireClientService>
}

/**
 * Resolves the caller of the current tool call.
 *
 * @since 0.1.0
 */
export class McpCaller extends Context.Service<
  McpCaller,
  {
    /** The caller of the call being handled, or the error to answer when there is none. */
    readonly current: Effect.Effect<Caller, ToolError>
  }
>()("@postwire/mcp/McpCaller") {}

/**
 * How the tool server reaches the API.
 *
 * @since 0.1.0
 */
export interface ApiOptions {
  /** Where the API is, e.g. `http://localhost:3000`. */
  readonly baseUrl: string
  /** Where the error reference is, for errors the tool server finds itself. Default `baseUrl`. */
  readonly docsBaseUrl?: string | undefined
}

const userAgent = "@postwire/mcp"

const makeClientFactory = Effect.fnUntraced(function* (options: ApiOptions) {
  const http = yield* HttpClient.HttpClient
  return (apiKey: Redacted.Redacted<string>, locale: Locale) =>
    (idempotencyKey?: string): Effect.Effect<PostwireClientService> => {
      // Every call asks the API to leave approval links out, whatever the key allows: an agent
      // never holds the link that approves its own post.
      const linkless = HttpClient.mapRequest(http, HttpClientRequest.setHeader(approvalLinksHeader, "hidden"))
      const keyed =
        idempotencyKey === undefined
          ? linkless
          : HttpClient.mapRequest(linkless, (request) =>
              request.method === "POST" || request.method === "PATCH"
                ? HttpClientRequest.setHeader(request, "idempotency-key", idempotencyKey)
                : request
            )
      // No retries inside a tool: the agent gets the error (with `retryable` and the wait) at once,
      // and a retry of the same call carries the same Idempotency-Key.
      return PostwireClient.make({ apiKey, baseUrl: options.baseUrl, locale, maxRetries: 0, userAgent }).pipe(
        Effect.provideService(HttpClient.HttpClient, keyed)
      )
    }
})

/**
 * One caller for every call: the key and language the tool server was started with (stdio).
 *
 * @since 0.1.0
 */
export const layerFixed = (
  options: ApiOptions & { readonly apiKey: Redacted.Redacted<string>; readonly locale: Locale }
): Layer.Layer<McpCaller> =>
  Layer.effect(
    McpCaller,
    Effect.gen(function* () {
      const clientFor = yield* makeClientFactory(options)
      const caller: Caller = {
        locale: options.locale,
        docsBaseUrl: options.docsBaseUrl ?? options.baseUrl,
        client: clientFor(options.apiKey, options.locale)
      }
      return { current: Effect.succeed(caller) }
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * The bearer token of an `Authorization` header, or `undefined` when there is none or it cannot
 * be an API key (keys are visible ASCII).
 *
 * @since 0.1.0
 */
export const bearerToken = (header: string | undefined): string | undefined => {
  const match = header === undefined ? null : /^Bearer +([\x21-\x7e]+) *$/i.exec(header)
  return match?.[1]
}

/**
 * Whether a string can be an API key: visible ASCII, as the client requires.
 *
 * @since 0.1.0
 */
export const isKeyShaped = (key: string): boolean => /^[\x21-\x7e]+$/.test(key)

/**
 * The caller of each call is the HTTP request's: its bearer token and its `Accept-Language`.
 *
 * @since 0.1.0
 */
export const layerFromRequest = (options: ApiOptions): Layer.Layer<McpCaller> =>
  Layer.effect(
    McpCaller,
    Effect.gen(function* () {
      const clientFor = yield* makeClientFactory(options)
      const docsBaseUrl = options.docsBaseUrl ?? options.baseUrl
      return {
        current: Effect.gen(function* () {
          const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
          const headers = Option.match(request, { onNone: () => ({}) as Record<string, string>, onSome: (r) => r.headers })
          const locale = localeFromAcceptLanguage(headers["accept-language"])
          const key = bearerToken(headers.authorization)
          if (key === undefined) return yield* Effect.fail(catalogError("unauthorized", { locale, docsBaseUrl }))
          const caller: Caller = { locale, docsBaseUrl, client: clientFor(Redacted.make(key), locale) }
          return caller
        })
      }
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))
