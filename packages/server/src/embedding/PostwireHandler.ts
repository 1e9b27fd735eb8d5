/**
 * The server inside an existing app: a request handler for `node:http` (Express, Connect,
 * Fastify's raw mode…) and a Web `fetch` handler, mountable under a path prefix. The host owns
 * the socket and the process: it starts and stops the background work (publishing, webhook
 * deliveries), and decides what to print. Guide: docs/embedding.md.
 *
 * @example
 * ```ts
 * import express from "express"
 * import { makeHandler } from "@postwire/server"
 *
 * const postwire = await makeHandler({ prefix: "/postwire", publicUrl: "http://localhost:3000/postwire" })
 * const app = express()
 * app.use("/postwire", postwire.node) // before any body parser
 * const server = app.listen(3000)
 * await postwire.start()
 * ```
 *
 * @since 0.1.0
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { HttpEffect, type HttpMiddleware, HttpRouter } from "effect/http"
import { AdminToken } from "../admin/AdminToken.ts"
import { type FirstRun, seedFirstRun } from "../admin/Bootstrap.ts"
import { backgroundLayer } from "../Background.ts"
import { ConfigProblem } from "../config/ServerConfig.ts"
import { observeRequests } from "../http/RequestLog.ts"
import { apiServicesLayer, Routes } from "../Server.ts"
import { type EmbedOptions, embedStoreLayer, resolveEmbedSettings } from "./EmbedOptions.ts"
import { startFailure } from "./EngineError.ts"

/** Options of {@link makeHandler}. */
export interface HandlerOptions extends EmbedOptions {
  /**
   * The path the host serves Postwire under, e.g. `/postwire`: the API is then at
   * `/postwire/v1`, the docs at `/postwire/docs`. Default: the path of `publicUrl`, else none.
   */
  readonly prefix?: string | undefined
  /** Bearer token of the admin API (`/admin/v1`); generated on the first start and returned once when absent. */
  readonly adminToken?: string | undefined
  /** Log one line per request (method, path with approval tokens masked, status). Default off. */
  readonly logRequests?: boolean | undefined
}

/** A Postwire server, as handlers the host mounts. */
export interface PostwireHandler {
  /**
   * The `node:http` request listener; also an Express/Connect middleware. It answers every
   * request it is given; requests under the prefix have it removed first (Express's
   * `app.use(prefix, …)` has already removed it).
   */
  readonly node: (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void
  /** The Web `fetch` handler, for runtimes and frameworks built on `Request`/`Response`. */
  readonly fetch: (request: Request) => Promise<Response>
  /** The path prefix in use (`""` when none). */
  readonly prefix: string
  /** The public address links are built on. */
  readonly publicUrl: string
  /** What the first start on an empty database created (workspace `default`, a test key, sandbox accounts); else `undefined`. */
  readonly firstRun: FirstRun | undefined
  /** The admin token when this start generated it (shown this once); else `undefined`. */
  readonly generatedAdminToken: string | undefined
  /** Starts publishing and webhook delivery in this process. Resolves once they run. */
  readonly start: () => Promise<void>
  /** Stops them, letting running steps finish and giving leases back. */
  readonly stop: () => Promise<void>
  /** Stops the background work and closes the database; the handlers answer no more. */
  readonly close: () => Promise<void>
}

const normalizePrefix = (prefix: string): string => {
  const trimmed = prefix.trim().replace(/\/+$/, "")
  if (trimmed === "") return ""
  if (!trimmed.startsWith("/") || /[?#\s]/.test(trimmed)) {
    throw new ConfigProblem("prefix", `expected a path such as "/postwire", got "${prefix}"`)
  }
  return trimmed
}

/** `url` without `prefix` when it starts with it (at a path boundary); else as it is. */
const withoutPrefix = (url: string, prefix: string): string => {
  if (prefix === "" || !url.startsWith(prefix)) return url
  const rest = url.slice(prefix.length)
  if (rest === "") return "/"
  if (rest.startsWith("/")) return rest
  if (rest.startsWith("?")) return `/${rest}`
  return url
}

/**
 * Builds the server's handlers: opens (and migrates) the database, runs the first start's
 * set-up on an empty one, and resolves when requests can be served. Background work waits
 * for {@link PostwireHandler.start}.
 */
export const makeHandler = async (options: HandlerOptions = {}): Promise<PostwireHandler> => {
  const fromUrl = options.publicUrl === undefined ? "" : new URL(options.publicUrl).pathname
  const prefix = normalizePrefix(options.prefix ?? fromUrl)
  const publicUrl = options.publicUrl ?? `http://localhost:8080${prefix}`
  const resolved = resolveEmbedSettings({ ...options, publicUrl })
  const settings = {
    ...resolved,
    role: "api" as const,
    adminToken: options.adminToken ?? resolved.adminToken,
    logRequests: options.logRequests ?? false
  }

  const services = apiServicesLayer(settings).pipe(
    Layer.provideMerge(embedStoreLayer(options, settings)),
    Layer.provideMerge(NodeHttpServer.layerHttpServices)
  )
  const runtime = ManagedRuntime.make(services)
  const built = await runtime.runPromiseExit(Effect.void)
  if (Exit.isFailure(built)) {
    await runtime.dispose()
    throw startFailure(built.cause, settings)
  }
  const context = await runtime.context()
  const requestScope = Scope.makeUnsafe()
  const httpEffect = await runtime.runPromise(Scope.provide(HttpRouter.toHttpEffect(Routes), requestScope))
  // Request ids and metrics always; our own request log when asked for (Effect's would write approval tokens into the log).
  const middleware = observeRequests(settings.logRequests) as HttpMiddleware.HttpMiddleware | undefined
  const nodeHandler = await runtime.runPromise(
    NodeHttpServer.makeHandler(httpEffect, middleware === undefined ? { scope: requestScope } : { scope: requestScope, middleware })
  )
  const webHandler = HttpEffect.toWebHandlerWith<ManagedRuntime.ManagedRuntime.Services<typeof runtime>, Effect.Services<typeof httpEffect>>(
    context
  )(httpEffect, middleware)
  const firstRun = await runtime.runPromise(seedFirstRun())
  const generatedAdminToken = await runtime.runPromise(
    Effect.gen(function* () {
      return (yield* AdminToken).generated
    })
  )

  let background: Scope.Closeable | undefined
  const start = async () => {
    if (background !== undefined) return
    const scope = Scope.makeUnsafe()
    background = scope
    await runtime.runPromise(
      Layer.buildWithScope(backgroundLayer({ ...settings, role: "all" }).pipe(Layer.provide(Layer.succeedContext(context))), scope)
    )
  }
  const stop = async () => {
    const scope = background
    background = undefined
    if (scope !== undefined) await runtime.runPromise(Scope.close(scope, Exit.void))
  }

  return {
    node: (request, response) => {
      request.url = withoutPrefix(request.url ?? "/", prefix)
      nodeHandler(request, response)
    },
    fetch: (request) => {
      const url = new URL(request.url)
      const path = withoutPrefix(url.pathname, prefix)
      if (path === url.pathname) return webHandler(request)
      url.pathname = path
      return webHandler(
        new Request(url, {
          method: request.method,
          headers: request.headers,
          signal: request.signal,
          ...(request.body === null ? {} : { body: request.body, duplex: "half" })
        } as RequestInit)
      )
    },
    prefix,
    publicUrl: settings.publicUrl,
    firstRun,
    generatedAdminToken,
    start,
    stop,
    close: async () => {
      await stop()
      await runtime.runPromise(Scope.close(requestScope, Exit.void))
      await runtime.dispose()
    }
  }
}
