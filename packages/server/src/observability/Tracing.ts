/**
 * Traces over OTLP/HTTP with Effect's own exporter, when the OpenTelemetry environment
 * variables name a collector (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, docs/operations.md). Without them nothing is installed: Effect's
 * tracer is switched off (`References.TracerEnabled`), so no span is even made in memory.
 *
 * What a trace holds: an HTTP request's server span, the use-case's spans under it, and each SQL
 * statement under those; a claimed target's step (`publishing.target`, with the target and post
 * ids) and each platform call under it (`platform.publish`, then the HTTP calls to the
 * platform); each webhook delivery (`webhooks.delivery`). Credentials stay out of spans: request
 * headers are not recorded, credential query parameters (`access_token`, `sig`, …) are redacted
 * from URLs, and the approval and connect pages (a token in their path) get no server span.
 *
 * @since 0.1.0
 */
import { Layer, References } from "effect"
import { FetchHttpClient, HttpMiddleware, UrlParams } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import type { TracingSettings } from "../config/ServerConfig.ts"

/** Query parameters whose values never go into a span's URL attributes: credentials and signatures. */
const redactedParameters = [
  ...UrlParams.CurrentRedactedNames.defaultValue(),
  "access_token",
  "appsecret_proof",
  "client_secret",
  "client_key",
  "refresh_token",
  "fb_exchange_token",
  "input_token",
  "code",
  "state",
  "token",
  "exp"
]

/** Paths that carry a credential (approval and connect links): their requests get no server span. */
const credentialInPath = /^\/(approve\/|v1\/approvals\/|connect\/(?!callback\/|sandbox\/|deauthorize\/))/

/** The tracer for these settings; with tracing off, spans are not even recorded in memory. */
export const layer = (tracing: TracingSettings | undefined): Layer.Layer<never> =>
  tracing === undefined
    ? Layer.succeed(References.TracerEnabled)(false)
    : Layer.mergeAll(
        Layer.succeed(UrlParams.CurrentRedactedNames)(redactedParameters),
        Layer.succeed(HttpMiddleware.TracerDisabledWhen)((request) => credentialInPath.test(request.url))
      ).pipe(Layer.provideMerge(exporter(tracing))) as Layer.Layer<never>

const exporter = (tracing: TracingSettings) =>
  OtlpTracer.layer({
    url: tracing.tracesUrl,
    resource: { serviceName: tracing.serviceName },
    headers: tracing.headers,
    exportInterval: tracing.exportIntervalMs,
    shutdownTimeout: "3 seconds"
  }).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))
