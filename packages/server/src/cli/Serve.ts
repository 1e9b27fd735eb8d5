/**
 * `postwire serve`: start the server, seed an empty database, and say how to use it.
 *
 * @since 0.1.0
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer, References } from "effect"
import { HttpServer } from "effect/http"
import { seedFirstRun } from "../admin/Bootstrap.ts"
import { AdminToken } from "../admin/AdminToken.ts"
import type { ServerSettings } from "../config/ServerConfig.ts"
import * as JsonLogger from "../observability/JsonLogger.ts"
import * as TextLogger from "../observability/TextLogger.ts"
import { serverLayer } from "../Server.ts"
import { storeLayer } from "../Storage.ts"

/**
 * Prints what a person needs once the server listens. With JSON logs it is one log line instead,
 * and the secrets shown once (a generated admin token, the first start's test key) are written to
 * `<data dir>/first-start-secrets` (mode 0600), never to the log.
 */
const announce = (settings: ServerSettings, print: (line: string) => void) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const admin = yield* AdminToken
      const firstRun = yield* seedFirstRun().pipe(Effect.orDie)
      const address = server.address
      const port = "port" in address ? address.port : settings.port
      const lines = [
        `Postwire is listening on port ${port} (${settings.databaseUrl ? "PostgreSQL" : `embedded database in ${settings.dataDir}`}, role ${settings.role})`,
        `  API:        ${settings.publicUrl}/v1`,
        `  Docs:       ${settings.publicUrl}/docs  (errors: ${settings.publicUrl}/docs/errors)`,
        `  OpenAPI:    ${settings.publicUrl}/v1/openapi.json`
      ]
      if (admin.generated) lines.push(`  Admin token (shown once; set POSTWIRE_ADMIN_TOKEN to choose your own): ${admin.generated}`)
      if (firstRun) {
        lines.push(
          "",
          "First start: created workspace `default` with sandbox accounts that publish to the simulated platform.",
          `  Workspace: ${firstRun.workspaceId}`,
          `  Test key (shown once, every scope): ${firstRun.testKey}`,
          `  Profile: ${firstRun.profileId}`,
          ...firstRun.accounts.map((a) => `  Account (${a.platform}, sandbox): ${a.id}`),
          "",
          "Try it:",
          `  curl -H "Authorization: Bearer ${firstRun.testKey}" ${settings.publicUrl}/v1/accounts`
        )
      }
      if (settings.logFormat !== "json") {
        for (const line of lines) print(line)
        return
      }
      // JSON logs go to a log store: the secrets shown once go to a file only the operator reads.
      const secrets = [
        ...(admin.generated ? [`POSTWIRE_ADMIN_TOKEN=${admin.generated}`] : []),
        ...(firstRun ? [`TEST_KEY=${firstRun.testKey}`] : [])
      ]
      const secretsFile = join(settings.dataDir, "first-start-secrets")
      if (secrets.length > 0) {
        mkdirSync(settings.dataDir, { recursive: true })
        writeFileSync(secretsFile, `${secrets.join("\n")}\n`, { mode: 0o600 })
      }
      yield* Effect.logInfo("Postwire is listening").pipe(
        Effect.annotateLogs({
          port,
          database: settings.databaseUrl ? "postgresql" : "embedded",
          role: settings.role,
          api: `${settings.publicUrl}/v1`,
          docs: `${settings.publicUrl}/docs`,
          ...(firstRun ? { workspace_id: firstRun.workspaceId, profile_id: firstRun.profileId } : {}),
          ...(secrets.length > 0 ? { secrets_file: secretsFile } : {})
        })
      )
    })
  )

/** The whole server for `postwire serve`. */
export const serveLayer = (settings: ServerSettings, print: (line: string) => void = console.log) =>
  announce(settings, print).pipe(
    Layer.provideMerge(serverLayer(settings, storeLayer(settings))),
    Layer.provide(settings.logFormat === "json" ? JsonLogger.layer : TextLogger.layer),
    Layer.provide(Layer.succeed(References.MinimumLogLevel)(settings.logLevel ?? "Info"))
  )
