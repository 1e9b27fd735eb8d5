/**
 * The Postwire server as one layer: the public API, the admin API, docs, and (with role
 * `worker` or `all`) the background work, over the store it is given.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { join } from "node:path"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import {
  BlobStore,
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  Mailer,
  type ConnectStore,
  type MediaStore,
  type PublishingStore,
  Store,
  type WebhookStore
} from "@postwire/core"
import { Api } from "@postwire/domain"
import { McpHttp } from "@postwire/mcp"
import { ConnectRouter, PlatformRouter } from "@postwire/platforms"
import { AdminApi } from "./admin/AdminApi.ts"
import { AdminAuthenticationLive, AdminHandlers } from "./admin/AdminHandlers.ts"
import { AdminToken } from "./admin/AdminToken.ts"
import { ApprovalRoutes } from "./approvals/ApprovalRoutes.ts"
import { ApprovalsHandlers } from "./approvals/ApprovalsHandlers.ts"
import * as SmtpMailer from "./approvals/SmtpMailer.ts"
import { backgroundLayer } from "./Background.ts"
import { ConnectRoutes } from "./connect/ConnectRoutes.ts"
import { publicPathOf, ServerConfig, type ServerSettings } from "./config/ServerConfig.ts"
import { errorReferenceHtml } from "./docs/ErrorReference.ts"
import { ApiErrorsLive } from "./http/ApiErrorsLive.ts"
import { answerClientErrors } from "./http/ClientErrors.ts"
import { AuthenticationLive } from "./http/AuthenticationLive.ts"
import { MediaFilesRoute } from "./http/MediaFiles.ts"
import { ReadyRoute } from "./http/Readiness.ts"
import { RequestGuard } from "./http/RequestGuard.ts"
import { requestLog } from "./http/RequestLog.ts"
import { EventsHandlers } from "./http/EventsHandlers.ts"
import { ApiHandlers } from "./http/Handlers.ts"
import { WebhooksHandlers } from "./http/WebhooksHandlers.ts"
import { DeliveryServices } from "./worker/DeliveryWorker.ts"
import * as S3BlobStore from "./media/S3BlobStore.ts"
import * as UrlMediaFetcher from "./media/UrlMediaFetcher.ts"

/** The engine's settings, keyed by the server secret kept in the store. */
export const EngineConfigLive = Layer.effect(
  EngineConfig,
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const store = yield* Store
    const secret = yield* store.ensureSetting("server_secret", randomBytes(32).toString("base64url")).pipe(Effect.orDie)
    return defaultSettings(config.publicUrl, secret)
  })
)

/** Connecting accounts: the platforms' OAuth with the configured apps, and the sandbox keyed by the server secret. */
const AccountConnectorLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* ServerConfig
    const engine = yield* EngineConfig
    return ConnectRouter.layer({ ...config.connect, publicUrl: config.publicUrl, sandboxSecret: engine.secret })
  })
)

/** The handlers of every group of the public contract. */
const PublicHandlers = Layer.mergeAll(ApiHandlers, ApprovalsHandlers, WebhooksHandlers, EventsHandlers)

const PublicApi = HttpApiBuilder.layer(Api, { openapiPath: "/v1/openapi.json" }).pipe(
  Layer.provide(PublicHandlers),
  Layer.provide([AuthenticationLive, ApiErrorsLive])
)

const Admin = HttpApiBuilder.layer(AdminApi).pipe(
  Layer.provide(AdminHandlers),
  Layer.provide([AdminAuthenticationLive, ApiErrorsLive])
)

const Docs = Layer.mergeAll(
  HttpApiScalar.layer(Api, { path: "/docs" }),
  HttpRouter.add("GET", "/docs/errors", HttpServerResponse.html(errorReferenceHtml())),
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
 */
const McpRoute = Layer.unwrap(
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
    return McpHttp.layer({
      path: "/mcp",
      apiBaseUrl:
        address === undefined || address._tag === "UnixPathAddress" ? config.publicUrl : `http://${host}:${address.port}`,
      docsBaseUrl: config.publicUrl,
      allowSkipApproval: config.mcpAllowSkipApproval
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
  RequestGuard,
  McpRoute,
  ReadyRoute
)

/** What an instance with role `worker` serves: its health and readiness, for the orchestrator; no API. */
export const WorkerRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/health", HttpServerResponse.jsonUnsafe({ status: "ok" })),
  ReadyRoute
)

/** Approval e-mails: SMTP when `smtpUrl` is set, else `.eml` files under `dataDir/mail` (development). */
const mailerLayer = (settings: ServerSettings): Layer.Layer<Mailer> =>
  settings.smtpUrl === undefined
    ? Mailer.layerDirectory(join(settings.dataDir, "mail"), settings.mailFrom)
    : SmtpMailer.layer({ url: settings.smtpUrl, from: settings.mailFrom })

/** The services the routes need, given a store. */
export const engineLayer = (settings: ServerSettings) =>
  Layer.mergeAll(
    EngineConfigLive,
    AdminToken.layer,
    Ids.layer,
    settings.mediaS3 === undefined ? BlobStore.layerDirectory(join(settings.dataDir, "media")) : S3BlobStore.layer(settings.mediaS3),
    mailerLayer(settings),
    PlatformRouter.layer(settings.platforms),
    CredentialsCipher.layer.pipe(Layer.provide(EngineConfigLive)),
    AccountConnectorLive.pipe(Layer.provide(EngineConfigLive)),
    DeliveryServices,
    UrlMediaFetcher.layer.pipe(Layer.provide(DeliveryServices))
  ).pipe(
    Layer.provideMerge(ServerConfig.layer(settings))
  )

/** The HTTP server on `settings.port`, over the given store. */
export const serverLayer = (
  settings: ServerSettings,
  store: Layer.Layer<Store | WebhookStore | PublishingStore | ConnectStore | MediaStore, unknown>
) =>
  HttpRouter.serve(settings.role === "worker" ? WorkerRoutes : Routes, {
    // Our own request log: Effect's would write approval tokens into the log.
    disableLogger: true,
    disableListenLog: true,
    ...(settings.logRequests ? { middleware: requestLog } : {})
  }).pipe(
    Layer.merge(backgroundLayer(settings)),
    Layer.provideMerge(engineLayer(settings)),
    // Headers up to 64 KiB, so that an overlong cursor or id is answered by the API (400 or 404)
    // rather than refused by Node with a bare 431.
    // Requests Node refuses before the router (an unknown method) still get the shared error shape.
    Layer.provideMerge(
      NodeHttpServer.layer(() => answerClientErrors(createServer({ maxHeaderSize: 64 * 1024 }), settings.publicUrl), {
        port: settings.port,
        host: settings.host
      })
    ),
    Layer.provideMerge(store)
  )
