/**
 * The client derived from the contract: one generic wrapper turns every endpoint of an
 * `HttpApiGroup` into a method, and mapped types give each method its signature. A new endpoint
 * in `@postwire/domain` is a new method here with no code written for it.
 *
 * The calling convention, read from the endpoint:
 * - each path parameter, in the order of the path, is a positional `string` (`get(id)`,
 *   `getDelivery(id, deliveryId)`); an empty one fails `invalid_request` naming it;
 * - then the body (the payload's wire form), optional when the contract accepts no body (`null`),
 *   or the query (its decoded form without brands), optional when every field of it is;
 * - then `options?: CreateOptions` when the endpoint declares the `Idempotency-Key` header;
 * - the answer is the decoded success, the error {@link PostwireClientError}.
 * Every endpoint named `list` also gets `listAll`, a stream that follows `cursor.next`.
 *
 * @internal
 */
import { Api, Authentication, ErrorDetail, type Locale } from "@postwire/domain"
import { type Brand, Effect, Option, type Redacted, type Schema, Stream } from "effect"
import type { HttpClient, HttpClientResponse } from "effect/http"
import { HttpApiClient, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import type { PostwireClientError } from "../ClientError.ts"
import type { CreateOptions } from "../Requests.ts"
import type { ListPage } from "../Resources.ts"
import { type ErrorContext, failBeforeAnswer, failFromAnswer, invalidRequest } from "./errors.ts"
import { transformClient } from "./transport.ts"

// ---------------------------------------------------------------------------------------------
// Types: the signature of each endpoint's method, computed from the endpoint's schemas.

type Unbranded<T> = T extends Brand.Brand<infer _Key>
  ? Brand.Brand.Unbranded<T>
  : T extends object
    ? { readonly [K in keyof T]: Unbranded<T[K]> }
    : T

/** The names of the path parameters of `Path`, in order: `"/v1/a/:id/b/:sub"` → `["id", "sub"]`. */
export type PathParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? [Name, ...PathParamNames<`/${Rest}`>]
  : Path extends `${string}:${infer Name}`
    ? [Name]
    : []

type AsStrings<T extends ReadonlyArray<unknown>> = { [K in keyof T]: string }

// A JSON payload's schema is wrapped for the wire (its `Encoded` is any JSON): the body is the wire form of the schema inside.
type PayloadOf<E extends HttpApiEndpoint.ConstraintRequest> = E["~Payload"] extends Schema.toCodecJson<infer S>
  ? S["Encoded"]
  : E["~Payload"]["Encoded"]
type QueryOf<E extends HttpApiEndpoint.ConstraintRequest> = Unbranded<E["~Query"]["Type"]>

/** The body or query argument of an endpoint's method: none, optional, or required. */
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
    ? [options?: CreateOptions]
    : []

/** The arguments of an endpoint's method. */
export type EndpointArgs<E extends HttpApiEndpoint.ConstraintRequest> = [
  ...AsStrings<PathParamNames<E extends { readonly path: infer P extends string } ? P : never>>,
  ...InputArgs<E>,
  ...OptionArgs<E>
]

/** What an endpoint answers, decoded. */
export type EndpointSuccess<E extends HttpApiEndpoint.ConstraintRequest> = HttpApiClient.SuccessType<E["~Success"]>

/** The method of one endpoint. */
export type EndpointMethod<E extends HttpApiEndpoint.ConstraintRequest> = (
  ...args: EndpointArgs<E>
) => Effect.Effect<EndpointSuccess<E>, PostwireClientError>

type ItemOf<A> = A extends ListPage<infer T> ? T : never

/**
 * The methods of one group: one per endpoint (but those in `Hidden`), and `listAll` beside `list`.
 */
export type GroupMethods<G extends { readonly endpoints: unknown }, Hidden extends string = never> = G["endpoints"] extends infer Endpoints extends
  Readonly<Record<string, HttpApiEndpoint.ConstraintRequest>>
  ? {
      readonly [K in keyof Endpoints as K extends Hidden ? never : K]: EndpointMethod<Endpoints[K]>
    } & {
      readonly [K in keyof Endpoints as K extends "list" ? (K extends Hidden ? never : "listAll") : never]: (
        ...args: EndpointArgs<Endpoints[K]>
      ) => Stream.Stream<ItemOf<EndpointSuccess<Endpoints[K]>>, PostwireClientError>
    }
  : never

type GroupsOf<A> = A extends { readonly groups: infer G } ? G[keyof G] : never

/** Every group of the contract that is not top level, by name. */
export type ContractGroups = {
  readonly [G in GroupsOf<typeof Api> as G extends HttpApiGroup.Constraint
    ? G extends { readonly topLevel: true }
      ? never
      : G["identifier"]
    : never]: G
}

/** The client of every group of the contract, with `Hidden[group]` left out of each group. */
export type DerivedService<Hidden extends Partial<Record<keyof ContractGroups, string>>> = {
  readonly [K in keyof ContractGroups]: GroupMethods<
    ContractGroups[K],
    K extends keyof Hidden ? (Hidden[K] extends string ? Hidden[K] : never) : never
  >
}

// ---------------------------------------------------------------------------------------------
// Runtime: the generic wrapper.

/** How a method built here behaves, for the Promise client that wraps it. */
export type MethodKind = { readonly kind: "page"; readonly pathParams: number } | { readonly kind: "stream" }

const kinds = new WeakMap<object, MethodKind>()

/** Whether `method` answers a page (the Promise client makes it a `PagePromise`) or a stream (left out there). */
export const methodKind = (method: unknown): MethodKind | undefined =>
  typeof method === "function" ? kinds.get(method) : undefined

/** Records that `method` answers a page whose query follows `pathParams` path parameters. */
export const markPaged = <F extends object>(method: F, pathParams: number): F => {
  kinds.set(method, { kind: "page", pathParams })
  return method
}

/** Records that `method` answers a stream. */
export const markStream = <F extends object>(method: F): F => {
  kinds.set(method, { kind: "stream" })
  return method
}

/** Settings the derived client needs. */
export interface DeriveSettings {
  readonly baseUrl: string
  readonly context: ErrorContext
  readonly apiKey: string | Redacted.Redacted<string> | undefined
  readonly userAgent: string
  readonly locale: Locale | undefined
  readonly maxRetries: number
  /**
   * Groups whose every POST the server deduplicates on `Idempotency-Key` beyond those declaring
   * the header: their POSTs get a generated key, so a failed one can be sent again.
   */
  readonly keyedGroups: ReadonlySet<string>
}

// Callers without `exactOptionalPropertyTypes` may write `{ cursor: undefined }`; JSON drops such keys, so do we.
const withoutUndefined = <A>(value: A): A => {
  if (Array.isArray(value)) return value.map(withoutUndefined) as A
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .map(([key, field]) => [key, withoutUndefined(field)])
  ) as A
}

/** `Idempotency-Key` from the caller's options, for an endpoint that declares the header. */
export const idempotencyHeaders = (options: CreateOptions | undefined): Record<string, string> =>
  options?.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }

const nextCursor = (page: ListPage<unknown>): Option.Option<string> =>
  page.cursor.has_more && page.cursor.next !== null ? Option.some(page.cursor.next) : Option.none()

/** Follows `cursor.next` from the first page until `has_more` is false. */
export const paginate = <Q extends { readonly cursor?: string | undefined }, T>(
  list: (query: Q) => Effect.Effect<ListPage<T>, PostwireClientError>,
  query: Q
): Stream.Stream<T, PostwireClientError> =>
  Stream.paginate(query, (current: Q) =>
    Effect.map(
      list(current),
      (page) => [page.data, Option.map(nextCursor(page), (cursor): Q => ({ ...current, cursor }))] as const
    )
  )

/** `listAll` beside a paged method whose query follows `pathParams` path parameters. */
export const listAllOf = (
  list: (...args: Array<unknown>) => Effect.Effect<ListPage<unknown>, PostwireClientError>,
  pathParams: number
) =>
  markStream((...args: Array<unknown>) =>
    paginate((query) => list(...args.slice(0, pathParams), query), (args[pathParams] ?? {}) as { cursor?: string })
  )

type AnyEndpoint = HttpApiEndpoint.Top
type AnyGroup = { readonly identifier: string; readonly topLevel: boolean; readonly endpoints: Record<string, AnyEndpoint> }
type Send = (request: Record<string, unknown>) => Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>

/** One endpoint of the generated client, for the methods written by hand: its sender and its decoder. */
export interface RawEndpoint {
  readonly send: Send
  readonly decode: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, unknown>
}

/** Whether the endpoint's headers schema has the field `name`. */
const declaresHeader = (endpoint: AnyEndpoint, name: string): boolean => {
  const ast = endpoint.headers?.ast as { readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey }> } | undefined
  return ast?.propertySignatures?.some((field) => field.name === name) ?? false
}

/** The path parameters of `path`, in order. */
export const pathParamNames = (path: string): ReadonlyArray<string> => Array.from(path.matchAll(/:(\w+)/g), (match) => match[1]!)

/** The groups of the contract that are not top level. */
export const contractGroups = (): ReadonlyArray<AnyGroup> =>
  Object.values((Api as unknown as { readonly groups: Record<string, AnyGroup> }).groups).filter((group) => !group.topLevel)

/**
 * Builds the methods of every group of the contract on `httpClient`. `hidden` names, per group,
 * the endpoints whose methods are written by hand (they are built, and returned apart in `raw`).
 */
export const deriveClient = Effect.fnUntraced(function* (settings: DeriveSettings, httpClient: HttpClient.HttpClient) {
  const { context } = settings
  const transports = new Map<string, HttpClient.HttpClient>()
  const transport = (authenticated: boolean, keyed: boolean) => {
    const name = `${authenticated}/${keyed}`
    let found = transports.get(name)
    if (found === undefined) {
      found = transformClient({
        apiKey: authenticated ? settings.apiKey : undefined,
        userAgent: settings.userAgent,
        locale: settings.locale,
        maxRetries: settings.maxRetries,
        idempotencyKeys: keyed
      })(httpClient)
      transports.set(name, found)
    }
    return found
  }

  // Sends with the generated client in "response-only" mode, then decodes with the same
  // schemas, so that an error answer keeps its status and headers (request id, Retry-After).
  const call = <A>(
    send: Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>,
    decodeAnswer: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, unknown>
  ): Effect.Effect<A, PostwireClientError> =>
    send.pipe(
      Effect.catchCause((cause) => failBeforeAnswer(cause, context)),
      Effect.flatMap((response) =>
        decodeAnswer(response).pipe(Effect.catchCause((cause) => failFromAnswer(cause, response, context)))
      )
    )

  // An empty id would address the list instead of the item.
  const checkPathParams = (names: ReadonlyArray<string>, values: ReadonlyArray<unknown>) => {
    const params: Record<string, string> = {}
    for (let i = 0; i < names.length; i++) {
      const value = values[i]
      if (typeof value !== "string" || value === "" || value === "." || value === "..") {
        return Effect.fail(invalidRequest([{ field: names[i]!, detail: ErrorDetail.reason("must_not_be_empty") }], context))
      }
      params[names[i]!] = value
    }
    return Effect.succeed(params)
  }

  const groups: Record<string, Record<string, unknown>> = {}
  /** Every endpoint's sender, for the hand-written methods (uploads) that need the raw call. */
  const raw: Record<string, Record<string, RawEndpoint>> = {}
  for (const group of contractGroups()) {
    const endpoints = Object.values(group.endpoints)
    const authenticated = endpoints.some((endpoint) => endpoint.middlewares.has(Authentication))
    const clients = new Map<boolean, Record<string, Send>>()
    const clientFor = Effect.fnUntraced(function* (keyed: boolean) {
      const found = clients.get(keyed)
      if (found !== undefined) return found
      const made = (yield* HttpApiClient.group(Api, {
        group: group.identifier as never,
        baseUrl: settings.baseUrl,
        httpClient: transport(authenticated, keyed)
      })) as unknown as Record<string, Send>
      clients.set(keyed, made)
      return made
    })
    const methods: Record<string, unknown> = {}
    raw[group.identifier] = {}
    for (const endpoint of endpoints) {
      const name = endpoint.identifier
      const declaresKey = declaresHeader(endpoint, "idempotency-key")
      const keyed = endpoint.method === "POST" && (declaresKey || settings.keyedGroups.has(group.identifier))
      const client = yield* clientFor(keyed)
      const send = client[name]!
      const decode = HttpApiClient.decodeResponse(Api, { group: group.identifier as never, endpoint: name as never }) as RawEndpoint["decode"]
      raw[group.identifier]![name] = { send, decode }
      const names = pathParamNames(endpoint.path)
      const hasPayload = endpoint.payload.size > 0
      const hasQuery = endpoint.query !== undefined
      const takesInput = hasPayload || hasQuery
      const method = (...args: Array<unknown>) => {
        const input = takesInput ? args[names.length] : undefined
        const options = args[names.length + (takesInput ? 1 : 0)] as CreateOptions | undefined
        return Effect.flatMap(checkPathParams(names, args), (params) => {
          const request: Record<string, unknown> = { responseMode: "response-only" }
          if (names.length > 0) request.params = params
          if (hasPayload) request.payload = withoutUndefined(input ?? {})
          if (hasQuery) request.query = withoutUndefined(input ?? {})
          if (endpoint.headers !== undefined) request.headers = declaresKey ? idempotencyHeaders(options) : {}
          return call(send(request), decode)
        }).pipe(Effect.withSpan(`postwire.${group.identifier}.${name}`))
      }
      methods[name] = name === "list" ? markPaged(method, names.length) : method
      if (name === "list") methods.listAll = listAllOf(method as never, names.length)
    }
    groups[group.identifier] = methods
  }
  return { groups, raw, call }
})
