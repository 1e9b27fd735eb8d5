/**
 * The tool server over Streamable HTTP, for a Postwire server to mount (`postwire serve` mounts
 * it at `/mcp`). The caller's API key is the bearer token of every request (401 in the API's
 * error shape without one), and no instance keeps a session: the session id carries what the
 * client said in `initialize`, and each request rebuilds its session from it, so requests may
 * reach any instance behind a load balancer.
 *
 * @since 0.1.0
 */
import { PostwireClient } from "@postwire/client"
import { type Locale, localeFromAcceptLanguage } from "@postwire/domain"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import { McpServer } from "effect/ai"
import {
  FetchHttpClient,
  HttpEffect,
  HttpRouter,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import * as PortableSession from "./internal/portableSession.ts"
import * as McpCaller from "./McpCaller.ts"
import * as PostwireMcp from "./PostwireMcp.ts"
import type * as Tools from "./Tools.ts"
import { catalogError } from "./ToolError.ts"

/**
 * Where and how the HTTP tool server runs.
 *
 * @since 0.1.0
 */
export interface HttpOptions {
  /** The route, e.g. `/mcp`. */
  readonly path: `/${string}`
  /** Where the tools call the API, e.g. the server's own loopback address. */
  readonly apiBaseUrl: string
  /** The public address of the error reference, for errors the tool server finds itself. */
  readonly docsBaseUrl: string
  /** `POSTWIRE_MCP_ALLOW_SKIP_APPROVAL=1`: `create_post` accepts `approval.mode: "none"`. */
  readonly allowSkipApproval: boolean
  /** The platforms the API serves (its registry), for the descriptions and `create_post`'s options; default the built-in ones. */
  readonly platforms?: ReadonlyArray<Tools.ToolPlatform> | undefined
}

const sessionHeader = "mcp-session-id"
const versionHeader = "mcp-protocol-version"

/** The request headers the MCP endpoint reads; nothing else reaches it. */
const forwardedHeaders = [
  "authorization",
  "accept",
  "accept-language",
  "content-type",
  "user-agent",
  versionHeader
] as const

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The JSON-RPC message of an answer, whether sent as JSON or as one server-sent event. */
const answerMessage = (contentType: string | null, text: string): unknown =>
  contentType?.startsWith("text/event-stream")
    ? parseJson(
        text
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("")
      )
    : parseJson(text)

const unauthorized = (locale: Locale, docsBaseUrl: string) => {
  const { status: _status, ...error } = catalogError("unauthorized", { locale, docsBaseUrl }).error
  return HttpServerResponse.jsonUnsafe(
    { error },
    { status: 401, headers: { "www-authenticate": 'Bearer realm="postwire"' } }
  )
}

/** An answer of the inner endpoint, read whole. */
interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/**
 * The API's `unauthorized` error when a tool result is one: the tool called the API with a key it
 * refuses. Its `status` field (the tool results' own) is dropped: the HTTP status says it.
 */
const refusedKeyError = (answer: Answer): Record<string, unknown> | undefined => {
  if (answer.status !== 200) return undefined
  const message = answerMessage(answer.headers.get("content-type"), answer.body)
  const result = isRecord(message) && isRecord(message.result) ? message.result : undefined
  if (result?.isError !== true || !Array.isArray(result.content)) return undefined
  const first: unknown = result.content[0]
  const text = isRecord(first) && typeof first.text === "string" ? parseJson(first.text) : undefined
  const error = isRecord(text) && isRecord(text.error) ? text.error : undefined
  if (error === undefined || error.code !== "unauthorized" || error.status !== 401) return undefined
  const { status: _status, ...rest } = error
  return rest
}

const toResponse = (answer: Answer, extraHeaders: Record<string, string> = {}) => {
  const headers: Record<string, string> = { ...extraHeaders }
  for (const name of ["allow", versionHeader]) {
    const value = answer.headers.get(name)
    if (value !== null) headers[name] = value
  }
  const contentType = answer.headers.get("content-type")
  return answer.body === "" && contentType === null
    ? HttpServerResponse.empty({ status: answer.status, headers })
    : HttpServerResponse.text(answer.body, {
        status: answer.status,
        contentType: contentType ?? "application/json",
        headers
      })
}

/**
 * Mounts the tool server at `options.path` on the current router.
 *
 * @example
 * ```ts
 * import { McpHttp } from "@postwire/mcp"
 *
 * const McpRoute = McpHttp.layer({
 *   path: "/mcp",
 *   apiBaseUrl: "http://127.0.0.1:8080",
 *   docsBaseUrl: "https://postwire.example.com",
 *   allowSkipApproval: false
 * })
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options: HttpOptions): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const router = yield* HttpRouter.HttpRouter
      const innerUrl = `http://mcp.internal${options.path}`
      // Effect's Streamable HTTP endpoint, on a router of its own: the route below sends it each
      // request, after rebuilding the request's session, and ends that session afterwards.
      const endpoint = McpServer.layerHttp({
        ...PostwireMcp.serverInfo,
        instructions: PostwireMcp.instructions(options),
        path: options.path,
        protocols: PostwireMcp.protocols,
        allowSessionTermination: true,
        registrations: PostwireMcp.registrations({
          allowSkipApproval: options.allowSkipApproval,
          docsBaseUrl: options.docsBaseUrl,
          platforms: options.platforms
        })
      }).pipe(Layer.provide(McpCaller.layerFromRequest({ baseUrl: options.apiBaseUrl, docsBaseUrl: options.docsBaseUrl })))
      // A fresh router: the server's own router is memoized in the same layer graph.
      const built = yield* Layer.build(Layer.provideMerge(endpoint, Layer.fresh(HttpRouter.layer))).pipe(Effect.orDie)
      const inner = Context.get(built, HttpRouter.HttpRouter).asHttpEffect()
      const handle = HttpEffect.toWebHandlerWith<never, HttpServerRequest.HttpServerRequest | Scope.Scope>(
        yield* Effect.context<never>()
      )(inner)
      const httpClient = FetchHttpClient.layer

      const send = (method: string, headers: Record<string, string>, body?: string): Effect.Effect<Answer> =>
        Effect.promise(async () => {
          const response = await handle(
            new Request(innerUrl, { method, headers, ...(body === undefined ? {} : { body }) })
          )
          return { status: response.status, headers: response.headers, body: await response.text() }
        })

      /** Whether the API accepts the key: only a 401 refuses it (a key without posts:read still publishes). */
      const keyRejected = (key: string, locale: Locale) =>
        Effect.gen(function* () {
          const client = yield* PostwireClient.make({
            apiKey: Redacted.make(key),
            baseUrl: options.apiBaseUrl,
            locale,
            maxRetries: 0,
            userAgent: "@postwire/mcp"
          })
          return yield* client.profiles.list({ limit: 1 }).pipe(
            Effect.as(undefined),
            Effect.catchTag("PostwireApiError", (error) => Effect.succeed(error.status === 401 ? error : undefined)),
            Effect.catchTag("PostwireConnectionError", () => Effect.succeed(undefined))
          )
        }).pipe(Effect.provide(httpClient))

      /** Runs `request` in a session rebuilt from `session`, then ends that session. */
      const inSession = (
        session: PortableSession.Session,
        base: Record<string, string>,
        request: (sessionId: string) => Effect.Effect<Answer>
      ) =>
        Effect.acquireUseRelease(
          Effect.gen(function* () {
            const json = { ...base, "content-type": "application/json", accept: "application/json, text/event-stream" }
            const initialized = yield* send(
              "POST",
              json,
              JSON.stringify({
                jsonrpc: "2.0",
                id: "postwire-session",
                method: "initialize",
                params: {
                  protocolVersion: session.protocolVersion,
                  capabilities: session.capabilities,
                  clientInfo: session.clientInfo
                }
              })
            )
            const sessionId = initialized.headers.get(sessionHeader)
            if (sessionId === null) return yield* Effect.die(new Error(`MCP session could not be rebuilt: ${initialized.body}`))
            yield* send(
              "POST",
              { ...json, [sessionHeader]: sessionId, [versionHeader]: session.protocolVersion },
              JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
            )
            return sessionId
          }),
          request,
          (sessionId) =>
            send("DELETE", { ...base, [sessionHeader]: sessionId, [versionHeader]: session.protocolVersion }).pipe(Effect.asVoid)
        )

      const serve = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const locale = localeFromAcceptLanguage(request.headers["accept-language"])
        const key = McpCaller.bearerToken(request.headers.authorization)
        if (key === undefined) return unauthorized(locale, options.docsBaseUrl)
        const base: Record<string, string> = {}
        for (const name of forwardedHeaders) {
          const value = request.headers[name]
          if (value !== undefined) base[name] = value
        }
        // Browser pages may not call it (DNS rebinding): no origin is allowed.
        if (request.headers.origin !== undefined) return HttpServerResponse.empty({ status: 403 })
        const clientSession = request.headers[sessionHeader]
        const session = clientSession === undefined ? undefined : PortableSession.decode(clientSession)
        if (clientSession !== undefined && session === undefined) {
          // Not an id of ours: the client must initialize again (Streamable HTTP, "Session Management").
          return HttpServerResponse.empty({ status: 404 })
        }
        if (request.method === "DELETE") {
          // Nothing is kept to end: the session lives in its id.
          return HttpServerResponse.empty({ status: session === undefined ? 400 : 204 })
        }
        if (request.method !== "POST") {
          // No server-initiated stream: every answer comes with its request.
          return HttpServerResponse.empty({ status: 405, headers: { allow: "POST, DELETE" } })
        }
        const body = yield* Effect.orElseSucceed(request.text, () => "")
        const message = parseJson(body)
        if (isRecord(message) && message.method === "initialize" && session === undefined) {
          const rejected = yield* keyRejected(key, locale)
          if (rejected !== undefined) {
            return HttpServerResponse.jsonUnsafe(
              { error: rejected.error },
              { status: 401, headers: { "www-authenticate": 'Bearer realm="postwire"' } }
            )
          }
          const answer = yield* send("POST", base, body)
          const innerSession = answer.headers.get(sessionHeader)
          if (innerSession === null) return toResponse(answer)
          yield* send("DELETE", { ...base, [sessionHeader]: innerSession, [versionHeader]: answer.headers.get(versionHeader) ?? "" })
          const result = answerMessage(answer.headers.get("content-type"), answer.body)
          const params = isRecord(message.params) ? message.params : {}
          const negotiated = isRecord(result) && isRecord(result.result) ? result.result.protocolVersion : undefined
          const portable = PortableSession.encode({
            protocolVersion: typeof negotiated === "string" ? negotiated : (answer.headers.get(versionHeader) ?? ""),
            capabilities: isRecord(params.capabilities) ? params.capabilities : {},
            clientInfo: isRecord(params.clientInfo) ? params.clientInfo : {}
          })
          return toResponse(answer, { [sessionHeader]: portable })
        }
        const answer =
          session === undefined
            ? yield* send("POST", base, body)
            : yield* inSession(session, base, (sessionId) =>
                send("POST", { ...base, [sessionHeader]: sessionId, [versionHeader]: base[versionHeader] ?? session.protocolVersion }, body)
              )
        // The API refused the key (revoked, or another one than the session began with): the
        // caller is told in HTTP, as at initialize, not by a tool result.
        const refused = refusedKeyError(answer)
        if (refused !== undefined) {
          return HttpServerResponse.jsonUnsafe({ error: refused }, { status: 401, headers: { "www-authenticate": 'Bearer realm="postwire"' } })
        }
        return toResponse(answer)
      })

      yield* router.add("*", options.path, serve)
    })
  )
