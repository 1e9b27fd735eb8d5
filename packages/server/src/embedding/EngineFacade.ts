/**
 * The engine's Promise API derived from the contract: every endpoint of every group of the
 * public `HttpApi` becomes a method that runs the endpoint's own handler in-process, with no
 * HTTP in between. The input is checked with the endpoint's schemas (bad input rejects with
 * `invalid_request` naming the field), the caller is the workspace the facade acts for, and an
 * error answer rejects with a {@link PostwireEngineError}. A new route in the contract and its
 * handler is a new method here with nothing written for it.
 *
 * Calling convention (as the SDK's): each path parameter in order as a positional string, then
 * the body or the query, then `options?: { idempotencyKey }` when the endpoint declares the
 * `Idempotency-Key` header. The answer is the decoded success (a list is one page).
 *
 * @internal
 */
import { Cause, type Context, Effect, Layer, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { Api, CurrentKey, type Locale } from "@postwire/domain"
import type { Brand } from "effect"
import { ApiErrorsLive } from "../http/Failures.ts"
import { AuthenticationLive } from "../http/AuthenticationLive.ts"
import * as RateLimiter from "../limits/RateLimiter.ts"
import * as RateLimitStore from "../limits/RateLimitStore.ts"
import { PublicHandlers } from "../Server.ts"
import { decodeInput, PostwireEngineError } from "./EngineError.ts"

// The server's own list of the contract's handlers: a group wired there is here too.
const handlerGroups = PublicHandlers.pipe(
  Layer.provide([AuthenticationLive, ApiErrorsLive]),
  // Authentication is built, never run here: its rate limiter may count in memory.
  Layer.provide(RateLimiter.layer.pipe(Layer.provide(RateLimitStore.layerMemory)))
)

/**
 * The handlers of every group of the public contract, as the server mounts them (their
 * middlewares are built too: the group layers look them up, though the facade does not run them).
 * Their requirements are the engine's services, as the server's `engineLayer` gives them; the
 * group layers type each as a `Request<"Requires", …>` marker, which only `HttpApiBuilder.layer`
 * unwraps, so they are named here as what they are.
 */
export const contractHandlers = <R>(
  engine: Layer.Layer<R, unknown>
): Layer.Layer<R | Layer.Success<typeof handlerGroups>, unknown> =>
  (handlerGroups as unknown as Layer.Layer<Layer.Success<typeof handlerGroups>, unknown, R>).pipe(Layer.provideMerge(engine))

// ---------------------------------------------------------------------------------------------
// Types: each endpoint's Promise method, from its schemas.

type Unbranded<T> = T extends Brand.Brand<infer _Key>
  ? Brand.Brand.Unbranded<T>
  : T extends object
    ? { readonly [K in keyof T]: Unbranded<T[K]> }
    : T

type PathParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? [Name, ...PathParamNames<`/${Rest}`>]
  : Path extends `${string}:${infer Name}`
    ? [Name]
    : []
type AsStrings<T extends ReadonlyArray<unknown>> = { [K in keyof T]: string }
type PayloadOf<E extends HttpApiEndpoint.ConstraintRequest> = E["~Payload"] extends Schema.toCodecJson<infer S>
  ? S["Encoded"]
  : E["~Payload"]["Encoded"]
type QueryOf<E extends HttpApiEndpoint.ConstraintRequest> = Unbranded<E["~Query"]["Type"]>
type InputArgs<E extends HttpApiEndpoint.ConstraintRequest> = [E["~Payload"]["Type"]] extends [never]
  ? [E["~Query"]["Type"]] extends [never]
    ? []
    : {} extends QueryOf<E>
      ? [query?: QueryOf<E>]
      : [query: QueryOf<E>]
  : null extends PayloadOf<E>
    ? [body?: Exclude<PayloadOf<E>, null>]
    : [body: PayloadOf<E>]
type OptionArgs<E extends HttpApiEndpoint.ConstraintRequest> = [E["~Headers"]["Type"]] extends [never]
  ? []
  : "idempotency-key" extends keyof E["~Headers"]["Type"]
    ? [options?: { readonly idempotencyKey?: string | undefined }]
    : []

/** The Promise method of one endpoint. */
export type EngineMethod<E extends HttpApiEndpoint.ConstraintRequest> = (
  ...args: [
    ...AsStrings<PathParamNames<E extends { readonly path: infer P extends string } ? P : never>>,
    ...InputArgs<E>,
    ...OptionArgs<E>
  ]
) => Promise<E["~Success"] extends Schema.Top ? E["~Success"]["Type"] : never>

type GroupsOf<A> = A extends { readonly groups: infer G } ? G[keyof G] : never

/** The Promise methods of every group of the contract that is not top level, by group. */
export type EngineGroups = {
  readonly [G in GroupsOf<typeof Api> as G extends { readonly topLevel: true; readonly identifier: string }
    ? never
    : G extends { readonly identifier: infer I extends string }
      ? I
      : never]: G extends { readonly endpoints: infer Endpoints }
    ? { readonly [K in keyof Endpoints]: Endpoints[K] extends HttpApiEndpoint.ConstraintRequest ? EngineMethod<Endpoints[K]> : never }
    : never
}

// ---------------------------------------------------------------------------------------------
// Runtime.

type AnyEndpoint = HttpApiEndpoint.Top
type AnyGroup = { readonly identifier: string; readonly key: string; readonly topLevel: boolean; readonly endpoints: Record<string, AnyEndpoint> }
type Handler = (request: Record<string, unknown>) => Effect.Effect<unknown, unknown, unknown>
interface GroupService {
  readonly handlers: ReadonlyMap<string, { readonly endpoint: AnyEndpoint; readonly handler: Handler }>
}

const pathParamNames = (path: string): ReadonlyArray<string> => Array.from(path.matchAll(/:(\w+)/g), (match) => match[1]!)

const declaresHeader = (endpoint: AnyEndpoint, name: string): boolean => {
  const ast = endpoint.headers?.ast as { readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey }> } | undefined
  return ast?.propertySignatures?.some((field) => field.name === name) ?? false
}

// A query's wire form is strings: numbers and booleans given by a caller are written as the URL would carry them.
const asQueryString = (query: unknown): unknown =>
  typeof query !== "object" || query === null || Array.isArray(query)
    ? query
    : Object.fromEntries(
        Object.entries(query)
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => [key, typeof value === "number" || typeof value === "boolean" ? String(value) : value])
      )

const firstSchema = (schemas: Iterable<Schema.Top>): Schema.Top | undefined => {
  for (const schema of schemas) return schema
  return undefined
}

/** The endpoint's JSON body schema (one of several as their union), if it takes one. */
const jsonPayload = (endpoint: AnyEndpoint): Schema.Top | undefined => {
  for (const entry of endpoint.payload.values()) {
    if (entry.encoding._tag !== "Json") continue
    const [first, ...rest] = entry.schemas
    return rest.length === 0 ? first : Schema.Union(entry.schemas as ReadonlyArray<Schema.Top>)
  }
  return undefined
}

/** An error answer of a handler (`{ error: {...} }`), as the engine's error. */
const engineFailure = (cause: Cause.Cause<unknown>): Effect.Effect<never, unknown> => {
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some") {
    const value = failure.value as { readonly error?: unknown }
    if (value instanceof PostwireEngineError) return Effect.fail(value)
    if (typeof value === "object" && value !== null && typeof value.error === "object" && value.error !== null && "code" in value.error) {
      return Effect.fail(new PostwireEngineError(value.error as ConstructorParameters<typeof PostwireEngineError>[0]))
    }
  }
  return Effect.failCause(cause)
}

/** What a facade needs to act: the caller and the language of answers. */
export interface FacadeCaller {
  readonly key: Context.Service.Shape<typeof CurrentKey>
  readonly locale: Locale
}

/**
 * Builds the Promise methods of every group of the contract on the handlers in `context`,
 * acting as `caller`; `run` runs an effect on the engine's runtime.
 */
export const deriveEngineGroups = (
  context: Context.Context<never>,
  caller: FacadeCaller,
  run: <A>(effect: Effect.Effect<A, unknown, never>) => Promise<A>
): EngineGroups => {
  const groups: Record<string, Record<string, unknown>> = {}
  for (const group of Object.values((Api as unknown as { readonly groups: Record<string, AnyGroup> }).groups)) {
    if (group.topLevel) continue
    const service = context.mapUnsafe.get(group.key) as GroupService | undefined
    if (service === undefined) continue
    const methods: Record<string, unknown> = {}
    for (const [name, { endpoint, handler }] of service.handlers) {
      const names = pathParamNames(endpoint.path)
      const payloadSchema = jsonPayload(endpoint)
      const takesInput = payloadSchema !== undefined || endpoint.query !== undefined
      const successSchema = firstSchema(endpoint.success)
      const keyed = declaresHeader(endpoint, "idempotency-key")
      methods[name] = (...args: Array<unknown>) => {
        const input = takesInput ? args[names.length] : undefined
        const options = args[names.length + (takesInput ? 1 : 0)] as { readonly idempotencyKey?: string } | undefined
        const headers: Record<string, string> = { "accept-language": caller.locale }
        if (keyed && options?.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
        const request = HttpServerRequest.fromWeb(
          new Request(`http://engine.invalid${endpoint.path}`, { method: endpoint.method === "GET" ? "GET" : "POST", headers })
        )
        const decoded = Effect.gen(function* () {
          const call: Record<string, unknown> = { request, endpoint, group }
          if (endpoint.params !== undefined) {
            call.params = yield* decodeInput(endpoint.params as never, "path")(
              Object.fromEntries(names.map((param, i) => [param, args[i]]))
            )
          }
          if (endpoint.query !== undefined) {
            call.query = yield* decodeInput(endpoint.query as never, "query")(asQueryString(input ?? {}))
          }
          if (payloadSchema !== undefined) call.payload = yield* decodeInput(payloadSchema as never, "body")(input ?? {})
          if (endpoint.headers !== undefined) {
            const { "accept-language": _language, ...declared } = headers
            call.headers = yield* decodeInput(endpoint.headers as never, "headers")(declared)
          }
          const answer = yield* handler(call)
          if (!HttpServerResponse.isHttpServerResponse(answer) || successSchema === undefined) return answer
          // A handler that writes its own JSON (the hot reads): read it back as the contract's type.
          const body = answer.body
          const text = body._tag === "Uint8Array" ? new TextDecoder().decode(body.body) : body._tag === "Raw" ? String(body.body) : ""
          return yield* Schema.decodeUnknownEffect(Schema.toCodecJson(successSchema as Schema.Codec<unknown, unknown>))(JSON.parse(text))
        })
        return run(
          decoded.pipe(
            Effect.provideService(CurrentKey, caller.key),
            Effect.provideService(HttpServerRequest.HttpServerRequest, request),
            Effect.provideContext(context),
            Effect.catchCause(engineFailure)
          ) as Effect.Effect<unknown, unknown, never>
        )
      }
    }
    groups[group.identifier] = methods
  }
  return groups as unknown as EngineGroups
}
