/**
 * The platforms' `PlatformHttp` on Node: `node:http` and `node:https` with keep-alive
 * connections, for the calls to TikTok, Meta and Threads while the tracer is off (with it on,
 * the calls go through the fetch-based `HttpClient`, which records a client span per call).
 *
 * It behaves like fetch where the adapters could tell: redirects are followed the way fetch
 * follows them (at most 20; a 303, or a 301/302 after a POST, turns into a GET without a body;
 * credentials headers are dropped when the origin changes; a scheme other than http(s) is a
 * network error), gzip, deflate and brotli bodies are decoded, a UTF-8 byte-order mark is
 * dropped, there is no limit on the body beyond the call's time, and the whole call (redirects
 * and body included) is cut off at its timeout. What it saves, per call: the `Request`,
 * `Response`, web streams and `AbortSignal` of fetch, and the Effect `HttpClient` around them.
 *
 * A request that fails on a reused connection before any answer, with a reset or a closed pipe
 * (the server closed the idle connection as the request went out), is sent once more on a new
 * connection when its method is GET, HEAD or DELETE; a POST fails with `network_error`, which
 * the adapters already treat as an answer that may be lost.
 *
 * @since 0.4.0
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib"
import { PlatformHttp } from "@postwire/platforms"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"

type Service = PlatformHttp.PlatformHttp["Service"]
type Request = PlatformHttp.PlatformHttpRequest
type Outcome = Effect.Effect<PlatformHttp.PlatformHttpResponse, PlatformHttp.PlatformHttpFailure>

/** How the connections are kept. */
export interface PoolOptions {
  /** How long an idle connection stays open. Default 4 s, below the 5 s most servers keep one. */
  readonly idleMs?: number | undefined
  /** Connections open at once to one origin. Default: no bound (as fetch). */
  readonly maxSocketsPerOrigin?: number | undefined
}

/** As fetch: at most this many redirects are followed. */
export const maxRedirects = 20

const redirects = new Set([301, 302, 303, 307, 308])
const retriedOnStaleConnection = new Set(["GET", "HEAD", "DELETE"])
const bodyHeaders = ["content-type", "content-length", "content-encoding", "content-language", "content-location"]
const credentialHeaders = ["authorization", "proxy-authorization", "cookie", "host"]

const without = (headers: Readonly<Record<string, string>>, names: ReadonlyArray<string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key of Object.keys(headers)) if (!names.includes(key)) out[key] = headers[key]!
  return out
}

/** The agents of the pool; destroyed (connections closed) when the scope closes. */
class Agents {
  readonly http: HttpAgent
  readonly https: HttpsAgent
  constructor(options: PoolOptions) {
    const agentOptions = {
      keepAlive: true,
      timeout: options.idleMs ?? 4_000,
      scheduling: "lifo" as const,
      ...(options.maxSocketsPerOrigin === undefined ? {} : { maxSockets: options.maxSocketsPerOrigin })
    }
    this.http = new HttpAgent(agentOptions)
    this.https = new HttpsAgent(agentOptions)
  }
  close() {
    this.http.destroy()
    this.https.destroy()
  }
}

/** One call, through its redirects, until it resumes the fiber once. */
class Call {
  private finished = false
  private current: ClientRequest | undefined
  private readonly timer: ReturnType<typeof setTimeout>

  constructor(
    private readonly agents: Agents,
    private readonly resume: (outcome: Outcome) => void,
    timeoutMs: number
  ) {
    this.timer = setTimeout(() => this.fail("timeout"), timeoutMs)
  }

  /** Ends the call (interrupted, or timed out): its connection is closed, not reused. */
  abort() {
    this.finished = true
    clearTimeout(this.timer)
    this.current?.destroy()
  }

  private fail(reason: PlatformHttp.PlatformHttpFailure) {
    if (this.finished) return
    this.abort()
    this.resume(Effect.fail(reason))
  }

  private succeed(status: number, text: string, headers: Readonly<Record<string, string>>) {
    if (this.finished) return
    this.finished = true
    clearTimeout(this.timer)
    const answer = Effect.succeed({ status, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, headers })
    // Node hands the connection back to the pool on the next tick after the body ends: resuming
    // after it lets the caller's next call reuse this connection instead of opening another.
    process.nextTick(() => this.resume(answer))
  }

  send(
    method: string,
    url: URL,
    headers: Readonly<Record<string, string>>,
    body: Uint8Array | undefined,
    redirected: number,
    fresh: boolean
  ) {
    if (this.finished) return
    const secure = url.protocol === "https:"
    if (!secure && url.protocol !== "http:") return this.fail("network_error")
    let request: ClientRequest
    try {
      request = (secure ? httpsRequest : httpRequest)(url, {
        method,
        headers,
        agent: secure ? this.agents.https : this.agents.http
      })
    } catch {
      return this.fail("network_error")
    }
    this.current = request
    let answered = false
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (this.finished) return
      if (
        !answered &&
        !fresh &&
        request.reusedSocket &&
        (error.code === "ECONNRESET" || error.code === "EPIPE") &&
        retriedOnStaleConnection.has(method)
      ) {
        return this.send(method, url, headers, body, redirected, true)
      }
      this.fail("network_error")
    })
    request.on("response", (response: IncomingMessage) => {
      answered = true
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if (redirects.has(status) && location !== undefined) {
        response.resume()
        if (redirected >= maxRedirects) return this.fail("network_error")
        let next: URL
        try {
          next = new URL(location, url)
        } catch {
          return this.fail("network_error")
        }
        let nextMethod = method
        let nextBody = body
        let nextHeaders: Readonly<Record<string, string>> = headers
        if ((status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
          nextMethod = "GET"
          nextBody = undefined
          nextHeaders = without(nextHeaders, bodyHeaders)
        }
        if (next.origin !== url.origin) nextHeaders = without(nextHeaders, credentialHeaders)
        return this.send(nextMethod, next, nextHeaders, nextBody, redirected + 1, false)
      }
      this.read(status, response)
    })
    request.end(body)
  }

  private read(status: number, response: IncomingMessage) {
    const encoding = response.headers["content-encoding"]?.trim().toLowerCase()
    const decoder =
      encoding === "gzip" || encoding === "x-gzip"
        ? createGunzip()
        : encoding === "deflate"
          ? createInflate()
          : encoding === "br"
            ? createBrotliDecompress()
            : undefined
    const source = decoder === undefined ? response : response.pipe(decoder)
    const chunks: Array<Buffer> = []
    source.on("data", (chunk: Buffer) => chunks.push(chunk))
    source.on("end", () =>
      this.succeed(
        status,
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
        headersOf(response)
      )
    )
    source.on("error", () => this.fail("network_error"))
    response.on("aborted", () => this.fail("network_error"))
    if (decoder !== undefined) response.on("error", () => this.fail("network_error"))
  }
}

const defaultHeaders = { accept: "*/*", "user-agent": "node" }

/** An answer's headers as plain strings (Node gives `set-cookie` as a list): repeated values joined with `, `. */
const headersOf = (response: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  const raw = response.headers
  for (const name in raw) {
    const value = raw[name]
    if (typeof value === "string") out[name] = value
    else if (Array.isArray(value)) out[name] = value.join(", ")
  }
  return out
}

const send = (agents: Agents, request: Request): Outcome =>
  Effect.callback<PlatformHttp.PlatformHttpResponse, PlatformHttp.PlatformHttpFailure>((resume) => {
    const call = new Call(agents, resume, request.timeoutMs)
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      resume(Effect.fail("network_error"))
      call.abort()
      return
    }
    call.send(request.method, url, { ...defaultHeaders, ...request.headers }, request.body, 0, false)
    return Effect.sync(() => call.abort())
  })

/**
 * A sender with its own pool; its connections are closed when the scope closes.
 *
 * @since 0.4.0
 */
export const make = (options: PoolOptions = {}) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new Agents(options)),
      (agents) => Effect.sync(() => agents.close())
    ),
    (agents): Service => ({ send: (request) => send(agents, request) })
  )

/**
 * The sender with keep-alive connections and the default pool.
 *
 * @example
 * ```ts
 * const Platforms = PlatformRouter.layerWithoutHttpClient(options).pipe(Layer.provide(NodePlatformHttp.layerWithHttpClient))
 * ```
 *
 * @since 0.4.0
 */
export const layer: Layer.Layer<PlatformHttp.PlatformHttp> = Layer.effect(PlatformHttp.PlatformHttp)(make())

/**
 * The sender and the fetch-based `HttpClient` beside it (traced calls): what the platform
 * routers of the server run on.
 *
 * @since 0.4.0
 */
export const layerWithHttpClient = Layer.mergeAll(layer, FetchHttpClient.layer)
