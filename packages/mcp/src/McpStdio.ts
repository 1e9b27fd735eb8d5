/**
 * The tool server over stdio, as desktop and IDE agents start it: `npx postwire mcp` (or
 * `npx postwire-mcp`) with `POSTWIRE_API_KEY` and `POSTWIRE_BASE_URL`, or `--api-key` and
 * `--base-url`. Only protocol messages go to stdout; logs go to stderr. A missing key, or one
 * the API rejects, is a one-line error at start.
 *
 * @since 0.1.0
 */
import { parseArgs } from "node:util"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { PostwireClient } from "@postwire/client"
import type { Locale } from "@postwire/domain"
import { Effect, Fiber, Layer, Logger, Redacted } from "effect"
import { McpServer } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import * as McpCaller from "./McpCaller.ts"
import * as PostwireMcp from "./PostwireMcp.ts"

/**
 * The settings of a stdio tool server.
 *
 * @since 0.1.0
 */
export interface StdioOptions {
  readonly apiKey: Redacted.Redacted<string>
  /** Where the API is, e.g. `http://localhost:8080`. */
  readonly baseUrl: string
  /** Language of error messages (`--lang id` for Indonesian). */
  readonly locale: Locale
  /** `--allow-skip-approval`: `create_post` accepts `approval.mode: "none"`. */
  readonly allowSkipApproval: boolean
}

/**
 * The usage text of the command.
 *
 * @since 0.1.0
 */
export const usage = `postwire mcp: the Postwire tool server for AI agents (Model Context Protocol over stdio).

Usage:
  postwire mcp [--api-key KEY] [--base-url URL] [--lang en|id] [--allow-skip-approval]

  --api-key KEY           API key (default: POSTWIRE_API_KEY)
  --base-url URL          the Postwire server (default: POSTWIRE_BASE_URL, else http://localhost:8080)
  --lang en|id            language of error messages (default: POSTWIRE_MCP_LANG, else en)
  --allow-skip-approval   let create_post publish without a person's approval (approval.mode "none")

Exit codes: 0 when the client closes stdin; 1 when the API rejects the key or cannot be reached
at start; 2 for a missing key or a wrong option. See docs/mcp.md, installed with @postwire/server
(node_modules/@postwire/server/docs/mcp.md).`

/**
 * A problem with the command line or environment (exit code 2).
 *
 * @since 0.1.0
 */
export class UsageProblem extends Error {
  override readonly name = "UsageProblem"
}

/**
 * The API rejected the key, or could not be reached, at start (exit code 1).
 *
 * @since 0.1.0
 */
export class StartupProblem extends Error {
  override readonly name = "StartupProblem"
}

/**
 * Reads the options from the command line and the environment; throws {@link UsageProblem}.
 *
 * @example
 * ```ts
 * import { McpStdio } from "@postwire/mcp"
 *
 * const options = McpStdio.resolveOptions(["--lang", "id"], { POSTWIRE_API_KEY: "svc_test_…" })
 * ```
 *
 * @since 0.1.0
 */
export const resolveOptions = (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>
): StdioOptions => {
  let values: { "api-key"?: string; "base-url"?: string; lang?: string; "allow-skip-approval"?: boolean }
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        "api-key": { type: "string" },
        "base-url": { type: "string" },
        lang: { type: "string" },
        "allow-skip-approval": { type: "boolean" }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    throw new UsageProblem(`postwire mcp: ${error instanceof Error ? error.message : String(error)}`)
  }
  const apiKey = (values["api-key"] ?? env.POSTWIRE_API_KEY ?? "").trim()
  if (apiKey === "") {
    throw new UsageProblem("postwire mcp: no API key: set POSTWIRE_API_KEY or pass --api-key")
  }
  if (!McpCaller.isKeyShaped(apiKey)) {
    throw new UsageProblem(
      `postwire mcp: ${values["api-key"] !== undefined ? "--api-key" : "POSTWIRE_API_KEY"} must be an API key (svc_live_… or svc_test_…) of visible ASCII characters`
    )
  }
  const baseUrl = (values["base-url"] ?? (env.POSTWIRE_BASE_URL || undefined) ?? "http://localhost:8080").trim().replace(/\/+$/, "")
  let parsed: URL | undefined
  try {
    parsed = new URL(baseUrl)
  } catch {
    parsed = undefined
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new UsageProblem(`postwire mcp: ${values["base-url"] !== undefined ? "--base-url" : "POSTWIRE_BASE_URL"} must be an http(s) URL, got "${baseUrl}"`)
  }
  const lang = values.lang ?? (env.POSTWIRE_MCP_LANG || undefined) ?? "en"
  if (lang !== "en" && lang !== "id") {
    throw new UsageProblem(`postwire mcp: ${values.lang !== undefined ? "--lang" : "POSTWIRE_MCP_LANG"} must be en or id, got "${lang}"`)
  }
  return { apiKey: Redacted.make(apiKey), baseUrl, locale: lang, allowSkipApproval: values["allow-skip-approval"] === true }
}

/**
 * Asks the API whether it accepts the key (one page of one profile). A 401 or no answer is a
 * {@link StartupProblem}; any other answer means the key works (a key without `posts:read`
 * still publishes).
 *
 * @since 0.1.0
 */
export const checkKey = (options: StdioOptions): Effect.Effect<void, StartupProblem> =>
  Effect.gen(function* () {
    const client = yield* PostwireClient.make({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      maxRetries: 0,
      userAgent: "@postwire/mcp"
    })
    yield* client.profiles.list({ limit: 1 }).pipe(
      Effect.catchTag("PostwireApiError", (error) =>
        error.status === 401
          ? Effect.fail(new StartupProblem(`postwire mcp: ${options.baseUrl} rejected the API key (401 ${error.code}): ${error.message}`))
          : Effect.void
      ),
      Effect.catchTag("PostwireConnectionError", (error) =>
        Effect.fail(
          new StartupProblem(
            error.kind === "network"
              ? `postwire mcp: cannot reach the Postwire API at ${options.baseUrl}`
              : `postwire mcp: ${options.baseUrl} does not answer like a Postwire API (check --base-url)`
          )
        )
      )
    )
  }).pipe(Effect.provide(FetchHttpClient.layer))

/**
 * The tool server on this process's stdin and stdout, with logs on stderr.
 *
 * @since 0.1.0
 */
export const layer = (options: StdioOptions) =>
  McpServer.layerStdio({
    ...PostwireMcp.serverInfo,
    instructions: PostwireMcp.instructions(options),
    protocols: PostwireMcp.protocols,
    registrations: PostwireMcp.registrations({ allowSkipApproval: options.allowSkipApproval, docsBaseUrl: options.baseUrl })
  }).pipe(
    Layer.provide(McpCaller.layerFixed({ apiKey: options.apiKey, baseUrl: options.baseUrl, locale: options.locale })),
    Layer.provide(NodeStdio.layer),
    Layer.provide(Layer.succeed(Logger.LogToStderr)(true))
  )

/**
 * Runs the command: checks the options and the key, then serves until the client closes stdin.
 * Sets `process.exitCode` (see {@link usage}).
 *
 * @since 0.1.0
 */
export const main = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>): void => {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stderr.write(`${usage}\n`)
    return
  }
  let options: StdioOptions
  try {
    options = resolveOptions(argv, env)
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error
    process.stderr.write(`${error.message}\n`)
    process.exitCode = 2
    return
  }
  const program = Effect.gen(function* () {
    yield* checkKey(options)
    const server = yield* Effect.forkChild(Layer.launch(layer(options)))
    // The client ends the session by closing stdin.
    yield* Effect.callback<void>((resume) => {
      const done = () => resume(Effect.void)
      if (process.stdin.readableEnded || process.stdin.destroyed) return done()
      process.stdin.once("end", done)
      process.stdin.once("close", done)
      return Effect.sync(() => {
        process.stdin.off("end", done)
        process.stdin.off("close", done)
      })
    })
    yield* Fiber.interrupt(server)
  }).pipe(
    Effect.catch((problem: unknown) =>
      Effect.sync(() => {
        process.stderr.write(`${problem instanceof Error ? problem.message : String(problem)}\n`)
        process.exitCode = 1
      })
    ),
    Effect.provide(Layer.succeed(Logger.LogToStderr)(true))
  )
  NodeRuntime.runMain(program, { disableErrorReporting: true })
}
