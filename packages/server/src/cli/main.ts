/**
 * The `postwire` command: `serve` and `admin`.
 *
 * @since 0.1.0
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { McpStdio } from "@postwire/mcp"
import { ConfigProblem, resolveSettings } from "../config/ServerConfig.ts"
import { adminUsage, runAdmin, UsageError } from "./Admin.ts"
import { serveLayer } from "./Serve.ts"

const usage = `Postwire: self-hostable social publishing.

Usage:
  postwire serve [--port 8080] [--host 0.0.0.0] [--data-dir ./.postwire] [--database-url URL] [--role api|worker|all]
  postwire admin <workspace|key|profile|account> <create|list|revoke> ... [--json]   (postwire admin --help)
  postwire mcp [--api-key KEY] [--base-url URL] [--lang en|id] [--allow-skip-approval]   (docs/mcp.md)
  postwire --help

Environment: PORT, DATABASE_URL, POSTWIRE_ADMIN_TOKEN, POSTWIRE_PUBLIC_URL,
POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS, POSTWIRE_RATE_LIMIT_PER_KEY, POSTWIRE_RATE_LIMIT_POSTS_CREATE
(see docs/configuration.md).`

const serveUsage = `Usage:
  postwire serve [--port 8080] [--host 0.0.0.0] [--data-dir ./.postwire] [--database-url URL] [--role api|worker|all]

  --port          port to listen on (PORT, default 8080)
  --host          address to listen on (HOST, default 0.0.0.0)
  --data-dir      embedded database, media and development e-mails (POSTWIRE_DATA_DIR, default ./.postwire)
  --database-url  PostgreSQL instead of the embedded database (DATABASE_URL)
  --role          api (HTTP only), worker (background work only) or all (POSTWIRE_ROLE, default all)

Every environment variable is in docs/configuration.md.`

const serve = (args: ReadonlyArray<string>): number | undefined => {
  if (args.some((arg) => arg === "--help" || arg === "-h")) {
    console.log(serveUsage)
    return 0
  }
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      "database-url": { type: "string" },
      role: { type: "string" }
    },
    strict: true,
    allowPositionals: false
  })
  const settings = resolveSettings(
    {
      port: values.port,
      host: values.host,
      dataDir: values["data-dir"],
      databaseUrl: values["database-url"],
      role: values.role
    },
    process.env
  )
  Layer.launch(serveLayer(settings)).pipe(NodeRuntime.runMain)
  return undefined
}

const main = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case "serve":
        return serve(rest)
      case "admin":
        return await runAdmin(rest, process.env, (line) => console.log(line))
      case "mcp":
        // The tool server over stdio: stdout carries only protocol messages.
        McpStdio.main(rest, process.env)
        return undefined
      case undefined:
      case "help":
      case "--help":
      case "-h":
        console.log(usage)
        return 0
      default:
        console.error(`Unknown command "${command}".\n\n${usage}`)
        return 2
    }
  } catch (error) {
    if (error instanceof ConfigProblem || error instanceof UsageError) {
      console.error(error.message)
      return 2
    }
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      console.error(`${error.message}\n\n${command === "admin" ? adminUsage() : command === "serve" ? serveUsage : usage}`)
      return 2
    }
    throw error
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
