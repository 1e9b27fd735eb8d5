/**
 * Answers for requests that reach the socket while the server is still starting.
 *
 * The HTTP server listens before its routes are built (the tool server at `/mcp` needs the
 * bound port), and Node holds a request that no listener takes for ever: a load balancer's
 * health check at start-up would hang. Until the router takes the requests over, every request
 * is answered at once: `GET /health` with `200 {"status":"ok"}` (the process is alive), every
 * other address, `/ready` and `/v1` included, with `503 not_ready` in the shared error shape,
 * `Retry-After` and the request id (docs/operations.md, "Health and readiness").
 *
 * @since 0.1.0
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { ErrorDetail, localeFromAcceptLanguage, PostwireError, renderError } from "@postwire/domain"
import * as RequestId from "./observability/RequestId.ts"

/** The seconds a caller is asked to wait before trying again during a start. */
export const retryAfterSeconds = 1

const header = (request: IncomingMessage, name: string) => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Whether a request asks for `/health`, at the root or under the public URL's path. */
const isHealth = (url: string | undefined, publicPath: string) => {
  const path = (url ?? "/").split("?")[0]!
  return path === "/health" || path === `${publicPath}/health`
}

/**
 * Makes `server` answer every request until another `request` listener (the router's) is
 * installed; from then on this one steps aside and leaves.
 */
export const answerWhileStarting = (server: Server, publicUrl: string): Server => {
  const publicPath = new URL(publicUrl).pathname.replace(/\/+$/, "")
  const starting = (request: IncomingMessage, response: ServerResponse) => {
    // The router listens too: it answers this request and every later one.
    if (server.listenerCount("request") > 1) {
      server.off("request", starting)
      return
    }
    const requestId = RequestId.fromHeader(header(request, "x-request-id"))
    if (request.method === "GET" || request.method === "HEAD") {
      if (isHealth(request.url, publicPath)) {
        const body = JSON.stringify({ status: "ok" })
        response.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-request-id": requestId
        })
        response.end(body)
        return
      }
    }
    const locale = localeFromAcceptLanguage(header(request, "accept-language"))
    const error = renderError(new PostwireError({ code: "not_ready", details: { detail: ErrorDetail.reason("still_starting") } }), locale, publicUrl)
    const body = JSON.stringify({ error: { ...error, request_id: requestId } })
    response.writeHead(503, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "retry-after": String(retryAfterSeconds),
      "x-request-id": requestId
    })
    response.end(body)
  }
  return server.on("request", starting)
}
