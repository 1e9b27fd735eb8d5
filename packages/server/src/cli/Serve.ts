/**
 * `postwire serve`: start the server, seed an empty database, and say how to use it.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { seedFirstRun } from "../admin/Bootstrap.ts"
import { AdminToken } from "../admin/AdminToken.ts"
import type { ServerSettings } from "../config/ServerConfig.ts"
import { serverLayer } from "../Server.ts"
import { storeLayer } from "../Storage.ts"

/** Prints what a person needs once the server listens. */
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
      for (const line of lines) print(line)
    })
  )

/** The whole server for `postwire serve`. */
export const serveLayer = (settings: ServerSettings, print: (line: string) => void = console.log) =>
  announce(settings, print).pipe(Layer.provideMerge(serverLayer(settings, storeLayer(settings))))
