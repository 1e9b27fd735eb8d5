/**
 * The `postwire` command: `serve`, `migrate`, `secrets`, `admin`, `analytics` and `mcp`.
 *
 * @since 0.1.0
 */
import { parseArgs } from "node:util"
import { setFlagsFromString } from "node:v8"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Runtime } from "effect"
import { Migrations, SqlStore } from "@postwire/store-sql"
import { ConfigProblem, resolveSettings, type ServerSettings } from "../config/ServerConfig.ts"
import * as MasterSecrets from "../config/MasterSecrets.ts"
import * as Reseal from "../secrets/Reseal.ts"
import { sqlClientLayer } from "../Storage.ts"
import { adminUsage, runAdmin, UsageError } from "./Admin.ts"
import { runAnalytics } from "./Analytics.ts"
import { loadPluginFiles, PluginFileProblem, pluginPaths } from "./PluginFiles.ts"
import { serveLayer } from "./Serve.ts"
import { explainStartupFailure, startupExitCode } from "./StartupFailure.ts"

const usage = `Postwire: self-hostable social publishing.

Usage:
  postwire serve [--port 8080] [--host 0.0.0.0] [--data-dir ./.postwire] [--database-url URL] [--role api|worker|all]
  postwire migrate [--data-dir ./.postwire] [--database-url URL]   (docs/operations.md)
  postwire secrets <generate|reseal> [--data-dir ./.postwire] [--database-url URL]   (postwire secrets --help)
  postwire admin <workspace|key|profile|account> <create|list|revoke> ... [--json]   (postwire admin --help)
  postwire analytics [--profile PROF] [--days 30] [--platform P] [--account ACC] [--json]   (postwire analytics --help)
  postwire mcp [--api-key KEY] [--base-url URL] [--lang en|id] [--allow-skip-approval]   (docs/mcp.md)
  postwire --help

Environment: PORT, DATABASE_URL, POSTWIRE_SECRET, POSTWIRE_SECRET_FILE, POSTWIRE_ADMIN_TOKEN, POSTWIRE_PUBLIC_URL,
POSTWIRE_PLUGINS, POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS, POSTWIRE_RATE_LIMIT_PER_KEY, POSTWIRE_RATE_LIMIT_POSTS_CREATE
(see docs/configuration.md).

The docs/ pages named here are installed with this command: node_modules/@postwire/server/docs/
(in a clone of the Postwire repository: docs/).`

const serveUsage = `Usage:
  postwire serve [--port 8080] [--host 0.0.0.0] [--data-dir ./.postwire] [--database-url URL] [--role api|worker|all]
                 [--plugin ./my-platform.mjs ...]

  --port          port to listen on (PORT, default 8080)
  --host          address to listen on (HOST, default 0.0.0.0)
  --data-dir      embedded database, media and development e-mails (POSTWIRE_DATA_DIR, default ./.postwire)
  --database-url  PostgreSQL instead of the embedded database (DATABASE_URL)
  --role          api (HTTP only), worker (background work only) or all (POSTWIRE_ROLE, default all)
  --trusted-proxies  addresses and CIDRs of reverse proxies whose X-Forwarded-For is believed (POSTWIRE_TRUSTED_PROXIES)
  --plugin        a JavaScript module whose default export (or export \`plugin\`) is a platform plugin or an
                  array of them; repeat it for several (POSTWIRE_PLUGINS, comma-separated; docs/platforms.md)
  --debug         on a start-up failure, print the full cause after the one-line explanation

Every environment variable is in docs/configuration.md.`

const migrateUsage = `Usage:
  postwire migrate [--data-dir ./.postwire] [--database-url URL] [--debug]

Applies the pending database migrations and exits; \`serve\` applies them too, under the same lock.

  --data-dir      embedded database (POSTWIRE_DATA_DIR, default ./.postwire)
  --database-url  PostgreSQL instead of the embedded database (DATABASE_URL)
  --debug         on a failure, print the full cause after the one-line explanation`

const secretsUsage = `Usage:
  postwire secrets generate
  postwire secrets reseal [--data-dir ./.postwire] [--database-url URL] [--debug]

  generate   prints a new strong master secret (for POSTWIRE_SECRET or a line of POSTWIRE_SECRET_FILE)
  reseal     re-seals every stored platform credential and webhook signing secret under the newest
             secret (POSTWIRE_SECRET, POSTWIRE_SECRET_FILE, or the data directory's secret file),
             then deletes an old secret left in the database; safe to run again (docs/operations.md)

  --data-dir      embedded database (POSTWIRE_DATA_DIR, default ./.postwire); stop the server first
  --database-url  PostgreSQL instead of the embedded database (DATABASE_URL)
  --debug         on a failure, print the full cause after the one-line explanation`

/**
 * On the embedded database, V8 compiles PGlite's WebAssembly with its baseline compiler only
 * (Liftoff). The optimizing tier otherwise recompiles PostgreSQL's hot functions during start-up:
 * it took about 40% of the second start and 45 MB of resident memory, for no statement throughput
 * measured on the posts path (docs/performance.md, "The embedded default"). It must run before
 * PGlite compiles its module; `node --no-liftoff-only` (or the same in NODE_OPTIONS) keeps both tiers.
 */
const lightWebAssembly = (settings: ServerSettings) => {
  const asked = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)]
  if (settings.databaseUrl === undefined && !asked.some((flag) => flag.includes("liftoff"))) setFlagsFromString("--liftoff-only")
}

/**
 * Runs a start-up program as the process's main: a failure prints one or two lines naming its
 * cause and fix (the full cause too with `--debug`) and exits 1; a stop signal stops it cleanly.
 */
const runStartup = <A, E>(program: Effect.Effect<A, E>, settings: ServerSettings, debug: boolean) => {
  lightWebAssembly(settings)
  return NodeRuntime.runMain(program, {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (Exit.isFailure(exit)) {
        const explained = explainStartupFailure(exit.cause, settings)
        if (explained !== undefined) {
          console.error(debug ? `${explained}\n\n${Cause.pretty(exit.cause)}` : explained)
          return onExit(startupExitCode(exit.cause))
        }
      }
      Runtime.defaultTeardown(exit, onExit)
    }
  })
}

const serve = async (args: ReadonlyArray<string>): Promise<number | undefined> => {
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
      "trusted-proxies": { type: "string" },
      plugin: { type: "string", multiple: true },
      debug: { type: "boolean" }
    },
    strict: true,
    allowPositionals: false
  })
  // Platform plugins are loaded first: each one's settings are read from the environment.
  const plugins = await loadPluginFiles(pluginPaths(values.plugin, process.env))
  const settings = resolveSettings(
    {
      plugins,
      port: values.port,
      host: values.host,
      dataDir: values["data-dir"],
      databaseUrl: values["database-url"],
      role: values.role,
      trustedProxies: values["trusted-proxies"]
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

const secrets = (args: ReadonlyArray<string>): number | undefined => {
  const [action, ...rest] = args
  if (action === undefined || action === "--help" || action === "-h" || rest.some((arg) => arg === "--help" || arg === "-h")) {
    console.log(secretsUsage)
    return action === undefined ? 2 : 0
  }
  if (action === "generate") {
    parseArgs({ args: [...rest], options: {}, strict: true, allowPositionals: false })
    console.log(MasterSecrets.generate())
    return 0
  }
  if (action !== "reseal") {
    console.error(`Unknown action "${action}" of postwire secrets.\n\n${secretsUsage}`)
    return 2
  }
  const { values } = parseArgs({
    args: [...rest],
    options: { "data-dir": { type: "string" }, "database-url": { type: "string" }, debug: { type: "boolean" } },
    strict: true,
    allowPositionals: false
  })
  const settings = resolveSettings({ dataDir: values["data-dir"], databaseUrl: values["database-url"] }, process.env)
  const program = Reseal.reseal(settings).pipe(
    Effect.tap((counts) => Effect.sync(() => Reseal.report(counts).forEach((line) => {
      console.log(line)
    }))),
    Effect.provide(Layer.provideMerge(SqlStore.layer, sqlClientLayer(settings)))
  )
  runStartup(program, settings, values.debug === true)
  return undefined
}

const main = async (argv: ReadonlyArray<string>): Promise<number | undefined> => {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case "serve":
        return await serve(rest)
      case "migrate":
        return migrate(rest)
      case "secrets":
        return secrets(rest)
      case "admin":
        return await runAdmin(rest, process.env, (line) => console.log(line))
      case "analytics":
        return await runAnalytics(rest, process.env, (line) => console.log(line))
      case "mcp": {
        // The tool server over stdio: stdout carries only protocol messages. Loaded for this
        // command only (docs/performance.md, "The embedded default").
        const { McpStdio } = await import("@postwire/mcp")
        McpStdio.main(rest, process.env)
        return undefined
      }
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
    if (error instanceof ConfigProblem || error instanceof UsageError || error instanceof PluginFileProblem) {
      console.error(error.message)
      return 2
    }
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      if (command === "admin") {
        console.error(`${error.message}\n\n${adminUsage()}`)
      } else {
        // One line naming the flag, one saying where the flags are listed.
        console.error(`${error.message}\nRun \`postwire ${command === "serve" || command === "migrate" || command === "secrets" || command === "analytics" ? `${command} ` : ""}--help\` for the options.`)
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
