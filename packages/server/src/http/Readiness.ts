/**
 * `GET /ready`: whether this instance can serve, for a load balancer or an orchestrator. Cheap
 * (one query) and unauthenticated, on every role: the database answers at the expected schema
 * version and, on a `worker` or `all` instance, every background loop runs (the answer lists
 * them). It answers within `POSTWIRE_READY_TIMEOUT_MS` (default 2 s) even when the database does
 * not: a load balancer stops sending traffic to an instance that cannot reach it. `GET /health`
 * says only that the process is alive.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { ErrorDetail, PostwireError } from "@postwire/domain"
import { DatabaseStatus } from "@postwire/store-sql"
import { defaultDatabaseSettings, ServerConfig } from "../config/ServerConfig.ts"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"
import { errorResponse } from "./Failures.ts"
import { requestLocale } from "./Locale.ts"

/** 200 `{"status":"ready","loops":{"publisher":"running",…}}`, or 503 `not_ready` in the shared error shape naming the cause (also logged). */
export const ReadyRoute = HttpRouter.add(
  "GET",
  "/ready",
  Effect.gen(function* () {
    const status = yield* Effect.serviceOption(DatabaseStatus.DatabaseStatus)
    const config = yield* ServerConfig
    const timeoutMs = (config.database ?? defaultDatabaseSettings).readyTimeoutMs
    // A store that is not SQL (in memory, embedded in a host) has no database to wait for.
    const check: DatabaseStatus.Check =
      status._tag === "Some"
        ? yield* status.value.check(timeoutMs)
        : { _tag: "Ready" }
    const states = yield* BackgroundLoops.states
    const loops = Object.fromEntries(states.map(([name, running]) => [name, running ? "running" : "stopped"]))
    const stopped =
      config.role === "api" ? [] : BackgroundLoops.expected.filter((name) => !states.some(([n, running]) => n === name && running))
    if (check._tag === "Ready" && stopped.length === 0) return HttpServerResponse.jsonUnsafe({ status: "ready", loops })
    yield* Effect.logWarning("not ready", check._tag === "Ready" ? { stopped_loops: stopped } : check)
    const locale = yield* requestLocale
    const detail =
      check._tag === "Unreachable"
        ? check.reason === "timeout"
          ? ErrorDetail.reason("database_no_answer", { ms: timeoutMs })
          : ErrorDetail.reason("database_unreachable")
        : check._tag === "SchemaBehind"
          ? ErrorDetail.reason("schema_behind", { migrations: check.pending.join(", ") })
          : check._tag === "SchemaAhead"
            ? ErrorDetail.reason("schema_ahead", { migrations: check.unknown.join(", ") })
            : ErrorDetail.reason("loops_stopped", { loops: stopped.join(", ") })
    const error = new PostwireError({ code: "not_ready", details: { detail } })
    return errorResponse(error, locale, config.publicUrl)
  })
)
