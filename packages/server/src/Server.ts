/**
 * The Postwire server as one layer: the public API, the admin API, docs, and (with role
 * `worker` or `all`) the background work, over the store it is given.
 *
 * @since 0.1.0
 */
import { createServer } from "node:http"
import { join } from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar, OpenApi } from "effect/http-api"
import {
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  type Mailer,
  type AnalyticsStore,
  type CommentStore,
  type ConnectStore,
  type MediaStore,
  type PublishingStore,
  SandboxConsent,
  type Store,
  type WebhookStore
} from "@postwire/core"
import { Api } from "@postwire/domain"
import { AnalyticsRouter, ConnectRouter, PlatformRouter, Registry } from "@postwire/platforms"
import { AdminApi } from "./admin/AdminApi.ts"
import { AdminAuthenticationLive, AdminHandlers } from "./admin/AdminHandlers.ts"
import { AdminToken } from "./admin/AdminToken.ts"
import { ApprovalRoutes } from "./approvals/ApprovalRoutes.ts"
import { ApprovalsHandlers } from "./approvals/ApprovalsHandlers.ts"
import * as SmtpMailer from "./approvals/SmtpMailer.ts"
import * as FileMailer from "./node/FileMailer.ts"
import * as NodePlatformHttp from "./node/NodePlatformHttp.ts"
import { backgroundLayer } from "./Background.ts"
import { ConnectRoutes } from "./connect/ConnectRoutes.ts"
import { publicPathOf, ServerConfig, type ServerSettings } from "./config/ServerConfig.ts"
import { completeDocument } from "./http/OpenApiPlatforms.ts"
import { docsHeaders, scalarConfig } from "./docs/ApiReferencePage.ts"
import { errorReferenceHtml } from "./docs/ErrorReference.ts"
import { answerClientErrors, answerWhileStarting, ApiErrorsLive, maxHeaderBytes } from "./http/Failures.ts"
import { ApiKeyCache } from "./http/ApiKeyCache.ts"
import { AuthenticationLive } from "./http/AuthenticationLive.ts"
import { MediaFilesRoute } from "./http/MediaFiles.ts"
import { SandboxPageRoute, sandboxPath } from "./sandbox/SandboxPage.ts"
import { ReadyRoute } from "./http/Readiness.ts"
import { RequestGuard } from "./http/RequestGuard.ts"
import * as RouteTable from "./http/RouteTable.ts"
import { observeRequests } from "./http/RequestLog.ts"
import { EventsHandlers } from "./http/EventsHandlers.ts"
import { ApiHandlers } from "./http/Handlers.ts"
import { CommentsHandlers } from "./http/CommentsHandlers.ts"
import { AnalyticsHandlers } from "./http/AnalyticsHandlers.ts"
import { PlatformComments } from "./comments/PlatformComments.ts"
import { PlatformHookRoutes } from "./comments/PlatformHookRoutes.ts"
import { WebhooksHandlers } from "./http/WebhooksHandlers.ts"
import type { IdempotencyStore } from "./limits/IdempotencyStore.ts"
import type { RateLimitStore } from "./limits/RateLimitStore.ts"
import * as RateLimiter from "./limits/RateLimiter.ts"
import { BackgroundLoops } from "./observability/BackgroundLoops.ts"
import { RouteTemplates } from "./observability/HttpMetrics.ts"
import * as JsonLogger from "./observability/JsonLogger.ts"
import { MetricsRoute } from "./observability/MetricsRoute.ts"
import * as PlatformCalls from "./observability/PlatformCalls.ts"
import * as Tracing from "./observability/Tracing.ts"
import * as ServerSecrets from "./secrets/ServerSecrets.ts"
import { DeliveryServices } from "./worker/DeliveryWorker.ts"
import * as S3BlobStore from "./media/S3BlobStore.ts"
import * as SharpImageConverter from "./media/SharpImageConverter.ts"
import * as UrlMediaFetcher from "./media/UrlMediaFetcher.ts"
import * as FileBlobStore from "./node/FileBlobStore.ts"

/**
 * The engine's settings, keyed by the master secrets from the configuration or the data
 * directory, never from the database alone (secrets/ServerSecrets.ts).
 */
export const EngineConfigLive = Layer.effect(
  EngineConfig,
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const { keyring } = yield* ServerSecrets.resolve(config)
    return defaultSettings(config.publicUrl, keyring, Registry.catalog(config.platforms.plugins))
  })
)

/** Connecting accounts: the platforms' OAuth with the configured apps, and the sandbox keyed by the server secret. */
const AccountConnectorLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const engine = yield* EngineConfig
    return ConnectRouter.layerWithoutHttpClient({
      ...config.connect,
      plugins: config.platforms.plugins,
      publicUrl: config.publicUrl,
      sandboxSecret: SandboxConsent.signingSecret(engine.keyring)
    }).pipe(Layer.provide(NodePlatformHttp.layerWithHttpClient))
  })
)

/** The handlers of every group of the public contract. */
export const PublicHandlers = Layer.mergeAll(ApiHandlers, ApprovalsHandlers, WebhooksHandlers, EventsHandlers, CommentsHandlers, AnalyticsHandlers)

/**
 * The public contract as this server serves it: its public address (with a mount prefix, when
 * there is one) is the OpenAPI document's `servers` entry, so the reference page and generated
 * clients call `/v1` where it really is.
 */
const servedApi = (config: Pick<ServerSettings, "publicUrl" | "platforms">) => {
  // The contract's own transform (its headers and parameters) runs first; the served platforms complete it.
  const contract = Context.getOption(Api.annotations, OpenApi.Transform)
  const served = completeDocument(Registry.make(config.platforms.plugins))
  return Api.annotate(OpenApi.Servers, [{ url: config.publicUrl }]).annotate(
    OpenApi.Transform,
    (spec) => served(Option.isSome(contract) ? contract.value(spec) : spec)
  )
}

const PublicApi = Layer.unwrap(
  Effect.map(ServerConfig, (config) =>
    HttpApiBuilder.layer(servedApi(config), { openapiPath: "/v1/openapi.json" })
  )
).pipe(
  Layer.provide(PublicHandlers),
  Layer.provide([AuthenticationLive, ApiErrorsLive])
)

const Admin = HttpApiBuilder.layer(AdminApi).pipe(
  Layer.provide(AdminHandlers),
  Layer.provide([AdminAuthenticationLive, ApiErrorsLive])
)

/**
 * Routes built on their first request rather than at start: `load` makes their layer (importing
 * what only they use), and the built routes answer this request and every later one. They are
 * built in the start's own context and scope, so they see the same services and are closed with
 * the server. `headers` are added to every answer of theirs.
 */
const onFirstRequest = <E, R>(
  method: "*" | "GET",
  path: `/${string}`,
  load: Effect.Effect<Layer.Layer<never, E, HttpRouter.HttpRouter>, never, R>,
  headers: Readonly<Record<string, string>> = {}
) =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      const startContext = yield* Effect.context<R | Scope.Scope>()
      const handler = yield* Effect.cached(
        load.pipe(
          // A router of their own: the server's router is memoized in the same layer graph.
          Effect.flatMap((routes) => Layer.build(Layer.provideMerge(routes, Layer.fresh(HttpRouter.layer)))),
          Effect.map((built) => Context.get(built, HttpRouter.HttpRouter).asHttpEffect()),
          Effect.orDie,
          Effect.provideContext(startContext)
        )
      )
      yield* router.add(
        method,
        path,
        Effect.map(Effect.flatten(handler), (response) => HttpServerResponse.setHeaders(response, headers))
      )
    })
  )

/** The reference page's headers: this server only, never framed (docs/ApiReferencePage.ts). */
export { docsHeaders }

const Docs = Layer.mergeAll(
  // The page's 3 MB script is imported with its layer: on the first visit, not at every start.
  onFirstRequest(
    "GET",
    "/docs",
    Effect.map(ServerConfig, (config) => HttpApiScalar.layer(servedApi(config), { path: "/docs", scalar: scalarConfig })),
    docsHeaders
  ),
  HttpRouter.add("GET", "/docs/errors", HttpServerResponse.setHeaders(HttpServerResponse.html(errorReferenceHtml()), docsHeaders)),
  HttpRouter.add(
    "GET",
    "/",
    Effect.gen(function* () {
      const config = yield* ServerConfig
      return HttpServerResponse.redirect(`${publicPathOf(config.publicUrl)}/docs`, { status: 302 })
    })
  )
)

/**
 * The tool server for AI agents at `/mcp` (docs/mcp.md). Its tools call this server's own API
 * on the address it listens on, with the caller's key, so every API rule holds for agents.
 * `@postwire/mcp` and its tools' JSON schemas are loaded on the first request to `/mcp`.
 */
const McpRoute = onFirstRequest(
  "*",
  "/mcp",
  Effect.gen(function* () {
    const config = yield* ServerConfig
    // Mounted inside a host's own server (embedding/PostwireHandler) there is no HttpServer
    // of ours: the tools then call the API at the public address.
    const server = yield* Effect.serviceOption(HttpServer.HttpServer)
    const address = Option.isSome(server) ? server.value.address : undefined
    // The address this instance listens on: the wildcard addresses are reached on loopback.
    const host =
      config.host === "0.0.0.0" || config.host === "" ? "127.0.0.1"
      : config.host === "::" ? "[::1]"
      : config.host.includes(":") ? `[${config.host}]`
      : config.host
    const { McpHttp } = yield* Effect.promise(() => import("@postwire/mcp"))
    return McpHttp.layer({
      path: "/mcp",
      apiBaseUrl:
        address === undefined || address._tag === "UnixPathAddress" ? config.publicUrl : `http://${host}:${address.port}`,
      docsBaseUrl: config.publicUrl,
      allowSkipApproval: config.mcpAllowSkipApproval,
      // The served platforms, from the registry: the tools describe them and take their options.
      platforms: Registry.make(config.platforms.plugins).plugins.map((plugin) => ({
        name: plugin.name,
        displayName: plugin.displayName,
        rules: plugin.rules,
        options: Registry.optionsOf(plugin)?.schema,
        needsConsent: Registry.optionsOf(plugin)?.needsConsent
      }))
    })
  })
)

/** Every route of the server: the public API, the admin API, docs, the tool server, and public pages (approval, connect), behind the request checks. */
export const Routes = Layer.mergeAll(
  PublicApi,
  Admin,
  Docs,
  ApprovalRoutes,
  ConnectRoutes,
  MediaFilesRoute,
  SandboxPageRoute,
  RequestGuard,
  McpRoute,
  ReadyRoute,
  PlatformHookRoutes,
  MetricsRoute
).pipe(Layer.provide(RouteTemplates.layer), Layer.provide(RouteTable.recording))

/** What an instance with role `worker` serves: its health, readiness and metrics, for the orchestrator; no API. */
export const WorkerRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/health", HttpServerResponse.jsonUnsafe({ status: "ok" })),
  ReadyRoute,
  MetricsRoute
).pipe(Layer.provide(RouteTemplates.layer))

/** Approval e-mails: SMTP when `smtpUrl` is set, else `.eml` files under `dataDir/mail` (development). */
const mailerLayer = (settings: ServerSettings): Layer.Layer<Mailer> =>
  settings.smtpUrl === undefined
    ? FileMailer.layer(join(settings.dataDir, "mail"), settings.mailFrom)
    : SmtpMailer.layer({ url: settings.smtpUrl, from: settings.mailFrom })

/** The services the routes need, given a store. */
export const engineLayer = (settings: ServerSettings) =>
  Layer.mergeAll(
    EngineConfigLive,
    AdminToken.layer,
    Ids.layer,
    settings.mediaS3 === undefined ? FileBlobStore.layer(join(settings.dataDir, "media")) : S3BlobStore.layer(settings.mediaS3),
    mailerLayer(settings),
    // PNG and WebP images become JPEG renditions for platforms that take JPEG only (Instagram).
    SharpImageConverter.layer,
    // The platform calls on keep-alive node:http connections (fetch while tracing: a span per call).
    PlatformCalls.layer.pipe(
      Layer.provide(
        PlatformRouter.layerWithoutHttpClient({
          ...settings.platforms,
          // A sandbox target's permalink is its page on this server, never a real platform's address.
          sandboxPageUrl: `${settings.publicUrl.replace(/\/+$/, "")}${sandboxPath}`
        }).pipe(Layer.provide(NodePlatformHttp.layerWithHttpClient))
      )
    ),
    PlatformComments(settings.platforms),
    // Metrics: the platforms' analytics adapters, sandbox accounts on the simulated platform's numbers.
    AnalyticsRouter.layerWithoutHttpClient(settings.platforms).pipe(Layer.provide(NodePlatformHttp.layerWithHttpClient)),
    CredentialsCipher.layer.pipe(Layer.provide(EngineConfigLive)),
    AccountConnectorLive.pipe(Layer.provide(EngineConfigLive)),
    DeliveryServices,
    BackgroundLoops.layer,
    UrlMediaFetcher.layer.pipe(Layer.provide(DeliveryServices)),
    // One cache for both APIs: a key revoked through the admin API is refused at once.
    ApiKeyCache.layer
  ).pipe(
    Layer.provideMerge(ServerConfig.layer(settings))
  )

/** The services the HTTP routes need, given a store: the engine's and the process's rate limiter. */
export const apiServicesLayer = (settings: ServerSettings) => Layer.merge(engineLayer(settings), RateLimiter.layer)

/**
 * The HTTP server on `settings.port`, over the given store. `extraRoutes` are built with the
 * server's own routes (a host's additions, or a test's); until all of them are built, requests
 * are answered by `Failures.answerWhileStarting` (503 `not_ready`, `/health` 200).
 */
export const serverLayer = (
  settings: ServerSettings,
  store: Layer.Layer<
    Store | WebhookStore | PublishingStore | ConnectStore | CommentStore | AnalyticsStore | MediaStore | RateLimitStore | IdempotencyStore,
    unknown
  >,
  extraRoutes: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.empty
) =>
  HttpRouter.serve(Layer.merge(settings.role === "worker" ? WorkerRoutes : Routes, extraRoutes), {
    // Our own request log: Effect's would write approval tokens into the log.
    disableLogger: true,
    disableListenLog: true,
    // Request ids and HTTP metrics on every request; the request log when asked for.
    middleware: observeRequests(settings.logRequests)
  }).pipe(
    Layer.merge(backgroundLayer(settings)),
    Layer.provideMerge(apiServicesLayer(settings)),
    // Headers up to 64 KiB, so that an overlong cursor or id is answered by the API (400 or 404)
    // rather than refused by Node with a bare 431.
    // Requests Node refuses before the router (an unknown method) still get the shared error shape.
    // The server listens before the routes are built: requests in between are answered 503.
    Layer.provideMerge(
      NodeHttpServer.layer(
        () => answerWhileStarting(answerClientErrors(createServer({ maxHeaderSize: maxHeaderBytes }), settings.publicUrl), settings.publicUrl),
        {
          port: settings.port,
          host: settings.host
        }
      )
    ),
    Layer.provideMerge(store),
    // Outermost, so that every fiber of the server (requests, background loops) logs and traces through them.
    Layer.provide(settings.logFormat === "json" ? JsonLogger.layer : Layer.empty),
    Layer.provide(Tracing.layer(settings.tracing))
  )
