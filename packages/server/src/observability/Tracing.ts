/**
 * Traces over OTLP/HTTP with Effect's own exporter, when the OpenTelemetry environment
 * variables name a collector (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, docs/operations.md). Without them nothing is installed: Effect's
 * native tracer stays, and the HTTP server skips its span work entirely.
 *
 * What a trace holds: an HTTP request's server span, the use-case's spans under it, and each SQL
 * statement under those; a claimed target's step (`publishing.target`, with the target and post
 * ids) and each platform call under it (`platform.publish`, then the HTTP calls to the
 * platform); each webhook delivery (`webhooks.delivery`).
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { type OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import type { TracingSettings } from "../config/ServerConfig.ts"

/** The tracer for these settings; an empty layer when tracing is off. */
export const layer = (tracing: TracingSettings | undefined): Layer.Layer<OtlpExporter.Flusher> =>
  tracing === undefined
    ? (Layer.empty as Layer.Layer<OtlpExporter.Flusher>)
    : OtlpTracer.layer({
        url: tracing.tracesUrl,
        resource: { serviceName: tracing.serviceName },
        headers: tracing.headers,
        exportInterval: tracing.exportIntervalMs,
        shutdownTimeout: "3 seconds"
      }).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))
