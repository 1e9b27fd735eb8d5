/**
 * Which methods each address of the server answers, for the answer to a request no route
 * serves: a path that exists with other methods is 405 `method_not_allowed` with an `Allow`
 * header, any other a 404 `route_not_found` naming the method and path, and a path that matches
 * a route but with an id longer than the router takes stays the resource's 404 `not_found`.
 *
 * The table is filled as the routes register themselves ({@link recording} stands between the
 * route layers and the router and notes every method and path it is given), so a route added
 * anywhere is in it without a list to keep up to date.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { FindMyWay, HttpRouter } from "effect/http"

/** The methods an address answers, as the `Allow` header lists them. */
const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/** The routes of one server, by method and path template. */
export interface RouteTableShape {
  /** Notes a route: its method (`*` for every method) and path template. */
  readonly note: (method: string, path: string) => void
  /** The methods that `url` answers to; empty when no route has its path. */
  readonly allowed: (url: string) => ReadonlyArray<string>
}

/** The route table of the server being built. */
export class RouteTable extends Context.Service<RouteTable, RouteTableShape>()("@postwire/server/RouteTable") {}

const make = (config: Partial<FindMyWay.RouterConfig>): RouteTableShape => {
  // The router's own matching, with no limit on a parameter's length: an overlong id still names its route.
  const router = FindMyWay.make<true>({ ...config, ignoreDuplicateSlashes: config.ignoreDuplicateSlashes ?? true, maxParamLength: Number.MAX_SAFE_INTEGER })
  return {
    note: (method, path) => {
      if (path === "*" || !path.startsWith("/")) return
      const template = path as FindMyWay.PathInput
      const add = (p: FindMyWay.PathInput) => (method === "*" ? router.all(p, true) : router.on(method, p, true))
      add(template)
      if (template.endsWith("/*")) add(template.slice(0, -2) as FindMyWay.PathInput)
    },
    allowed: (url) => {
      const found = methods.filter((method) => router.find(method, url) !== undefined)
      // The router answers HEAD with the GET route.
      return found.includes("GET") && !found.includes("HEAD") ? [...found.slice(0, 1), "HEAD", ...found.slice(1)] : found
    }
  }
}

/**
 * Provides the route table, and to the route layers a router that notes each route in it before
 * handing it to the real one.
 */
export const recording: Layer.Layer<HttpRouter.HttpRouter | RouteTable, never, HttpRouter.HttpRouter> = Layer.effectContext(
  Effect.gen(function* () {
    const router = yield* HttpRouter.HttpRouter
    const table = make(yield* HttpRouter.RouterConfig)
    const noting: HttpRouter.HttpRouter = HttpRouter.HttpRouter.of({
      ...router,
      add: (method, path, handler, options) => {
        table.note(method, path)
        return router.add(method, path, handler, options)
      },
      addAll: (routes) => {
        for (const route of routes) table.note(route.method, route.path)
        return router.addAll(routes)
      }
    })
    return Context.make(HttpRouter.HttpRouter, noting).pipe(Context.add(RouteTable, table))
  })
)
