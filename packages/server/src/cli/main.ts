/**
 * The `postwire` command: `serve`, `migrate`, `admin` and `mcp`.
 *
 * @since 0.1.0
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Runtime } from "effect"
import { McpStdio } from "@postwire/mcp"
import { Migrations } from "@postwire/store-sql"
import { ConfigProblem, resolveSettings, type ServerSettings } from "../config/ServerConfig.ts"
import { sqlClientLayer } from "../Storage.ts"
import { adminUsage, runAdmin, UsageError } from "./Admin.ts"
import { serveLayer } from "./Serve.ts"
import { explainStartupFailure } from "./StartupFailure.ts"

const usage = `Postwire: self-hostable social publishing.

Usage:
  postwire serve [--port 8080] [--host 0.0.0.0] [--data-dir ./.postwire] [--database-url URL] [--role api|worker|all]
  postwire migrate [--data-dir ./.postwire] [--database-url URL]   (docs/operations.md)
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
  --debug         on a start-up failure, print the full cause after the one-line explanation

Every environment variable is in docs/configuration.md.`

const migrateUsage = `Usage:
  postwire migrate [--data-dir ./.postwire] [--database-url URL] [--debug]

Applies the pending database migrations and exits; \`serve\` applies them too, under the same lock.

  --data-dir      embedded database (POSTWIRE_DATA_DIR, default ./.postwire)
  --database-url  PostgreSQL instead of the embedded database (DATABASE_URL)
  --debug         on a failure, print the full cause after the one-line explanation`

/**
 * Runs a start-up program as the process's main: a failure prints one or two lines naming its
 * cause and fix (the full cause too with `--debug`) and exits 1; a stop signal stops it cleanly.
 */
const runStartup = <A, E>(program: Effect.Effect<A, E>, settings: ServerSettings, debug: boolean) =>
  NodeRuntime.runMain(program, {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (Exit.isFailure(exit)) {
        const explained = explainStartupFailure(exit.cause, settings)
        if (explained !== undefined) {
          console.error(debug ? `${explained}\n\n${Cause.pretty(exit.cause)}` : explained)
          return onExit(1)
        }
      }
      Runtime.defaultTeardown(exit, onExit)
    }
  })

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
      role: { type: "string" },
      debug: { type: "boolean" }
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
  runStartup(Layer.launch(serveLayer(settings)), settings, values.debug === true)
  return undefined
}

const migrate = (args: ReadonlyArray<string>): number | undefined => {
  if (args.some((arg) => arg === "--help" || arg === "-h")) {
    console.log(migrateUsage)
    return 0
  }
  const { values } = parseArgs({
    args: [...args],
    options: { "data-dir": { type: "string" }, "database-url": { type: "string" }, debug: { type: "boolean" } },
    strict: true,
    allowPositionals: false
  })
  const settings = resolveSettings({ dataDir: values["data-dir"], databaseUrl: values["database-url"] }, process.env)
  const program = Effect.gen(function* () {
    const ran = yield* Migrations.migrate
    const latest = Migrations.known.at(-1)
    console.log(
      ran.length === 0
        ? `The database is up to date (${latest}).`
        : `Applied ${ran.length} migration${ran.length === 1 ? "" : "s"}: ${ran.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`).join(", ")}. The database is at ${latest}.`
    )
  }).pipe(Effect.provide(sqlClientLayer(settings)))
  runStartup(program, settings, values.debug === true)
  return undefined
}

const main = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case "serve":
        return serve(rest)
      case "migrate":
        return migrate(rest)
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
      if (command === "admin") {
        console.error(`${error.message}\n\n${adminUsage()}`)
      } else {
        // One line naming the flag, one saying where the flags are listed.
        console.error(`${error.message}\nRun \`postwire ${command === "serve" || command === "migrate" ? `${command} ` : ""}--help\` for the options.`)
      }
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
    console.error(
      process.argv.includes("--debug") ? error
      : `Postwire failed: ${error instanceof Error ? error.message : String(error)}\nRun the same command with --debug to see the details.`
    )
    process.exitCode = 1
  }
)
