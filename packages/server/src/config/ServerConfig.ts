/**
 * The server's typed configuration, from flags and environment variables
 * (documented in docs/configuration.md).
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { Context, Layer, Redacted } from "effect"
import { type ConnectRouter, type Plugin, type PlatformPlugin, type PlatformRouter, Registry } from "@postwire/platforms"
import * as MasterSecrets from "./MasterSecrets.ts"
import { parseS3Url, type S3Settings } from "../media/S3BlobStore.ts"
import * as ClientAddress from "./ClientAddress.ts"

/** Which work an instance does: serve HTTP, run background work, or both. */
export type Role = "api" | "worker" | "all"

/** Resolved server settings. */
export interface ServerSettings {
  readonly port: number
  readonly host: string
  /** Data directory of the embedded database and media (default `./.postwire`). */
  readonly dataDir: string
  /** PostgreSQL URL; when absent, the embedded database in `dataDir` is used. */
  readonly databaseUrl: string | undefined
  /** How long the server waits on PostgreSQL (docs/configuration.md); the defaults when absent. */
  readonly database?: DatabaseSettings | undefined
  readonly role: Role
  /**
   * The master secrets from `POSTWIRE_SECRET` or `POSTWIRE_SECRET_FILE`, newest first; empty
   * when neither is set (the embedded default then keeps its own in `dataDir/secret`).
   */
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  /** Bearer token of the admin API; generated and stored on first start when absent. */
  readonly adminToken: string | undefined
  /** Base of approval and docs links. */
  readonly publicUrl: string
  readonly unsafeAllowLoopbackWebhooks: boolean
  /** Requests per minute per key. */
  readonly rateLimitPerKey: number
  /** POST /posts per minute per key. */
  readonly rateLimitPostsCreate: number
  /** Requests per minute per client address to the public approval page and decision endpoint. */
  readonly rateLimitPublic: number
  /** Log every request (off by default on the hot path). */
  readonly logRequests: boolean
  /** SMTP server of approval e-mails (`smtp://` or `smtps://`); when absent, e-mails are written under `dataDir/mail`. */
  readonly smtpUrl: string | undefined
  /** Sender of approval e-mails, e.g. `Postwire <no-reply@example.com>`. */
  readonly mailFrom: string
  /** How an instance with role `worker` or `all` publishes (docs/publishing.md). */
  readonly publishing: PublishingSettings
  /** Where the four platforms' APIs are, and the app credentials to call them with. */
  readonly platforms: PlatformRouter.Options
  /** `POSTWIRE_MCP_ALLOW_SKIP_APPROVAL=1`: the tool server at `/mcp` lets agents create posts without approval. */
  readonly mcpAllowSkipApproval: boolean
  /** The platforms' authorization and token hosts and app credentials, for connecting accounts (docs/accounts.md). */
  readonly connect: Omit<ConnectRouter.Options, "publicUrl" | "sandboxSecret">
  /** How an instance with role `worker` or `all` reads comments, and Meta's comment webhook (docs/comments.md). */
  readonly comments: CommentSettings
  /** How a worker reads metrics (docs/analytics.md). */
  readonly analytics: AnalyticsSettings
  /** `POSTWIRE_METRICS_TOKEN`: when set, `GET /metrics` asks for it as a bearer token. */
  readonly metricsToken?: string | undefined
  /** `POSTWIRE_LOG_FORMAT`: `text` (default) or `json`, one JSON object per line on stdout. */
  readonly logFormat?: LogFormat | undefined
  /** Where spans go over OTLP/HTTP (`OTEL_EXPORTER_OTLP_ENDPOINT`); tracing is off when absent. */
  readonly tracing?: TracingSettings | undefined
  /** `POSTWIRE_LOG_LEVEL`: the least severe level written (default `Info`). */
  readonly logLevel?: "Trace" | "Debug" | "Info" | "Warn" | "Error" | undefined
  /** `POSTWIRE_TRUSTED_PROXIES` / `--trusted-proxies`: the proxies whose `X-Forwarded-For` / `Forwarded` is believed; none when absent. */
  readonly trustedProxies?: ClientAddress.TrustedProxies | undefined
  /** The largest request bodies the server reads (docs/configuration.md). */
  readonly bodyLimits?: BodyLimitSettings | undefined
  /** `POSTWIRE_MEDIA_S3_URL`: media bytes in this S3-compatible bucket; absent, under `dataDir/media`. */
  readonly mediaS3?: S3Settings | undefined
}

/** How long the server waits on its database: every wait has a limit. */
export interface DatabaseSettings {
  /**
   * `POSTWIRE_DB_STATEMENT_TIMEOUT_MS` (default 30000): PostgreSQL cancels a statement that runs
   * longer, and a connection that has not answered 2 s after that is destroyed, never reused.
   */
  readonly statementTimeoutMs: number
  /** `POSTWIRE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS` (default 60000): PostgreSQL ends a session left idle inside a transaction this long. */
  readonly idleInTransactionTimeoutMs: number
  /** `POSTWIRE_DB_CONNECT_TIMEOUT_MS` (default 5000): opening a connection, authentication included. */
  readonly connectTimeoutMs: number
  /** `POSTWIRE_READY_TIMEOUT_MS` (default 2000): `GET /ready` answers 503 when the database has not answered within this long. */
  readonly readyTimeoutMs: number
}

/** The default database waits. */
export const defaultDatabaseSettings: DatabaseSettings = {
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
  connectTimeoutMs: 5_000,
  readyTimeoutMs: 2_000
}

const databaseSettings = (env: Readonly<Record<string, string | undefined>>): DatabaseSettings => ({
  statementTimeoutMs: positiveInt("POSTWIRE_DB_STATEMENT_TIMEOUT_MS", env.POSTWIRE_DB_STATEMENT_TIMEOUT_MS, defaultDatabaseSettings.statementTimeoutMs),
  idleInTransactionTimeoutMs: positiveInt(
    "POSTWIRE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS",
    env.POSTWIRE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    defaultDatabaseSettings.idleInTransactionTimeoutMs
  ),
  connectTimeoutMs: positiveInt("POSTWIRE_DB_CONNECT_TIMEOUT_MS", env.POSTWIRE_DB_CONNECT_TIMEOUT_MS, defaultDatabaseSettings.connectTimeoutMs),
  readyTimeoutMs: positiveInt("POSTWIRE_READY_TIMEOUT_MS", env.POSTWIRE_READY_TIMEOUT_MS, defaultDatabaseSettings.readyTimeoutMs)
})

/** How log lines are written. */
export type LogFormat = "text" | "json"

/** Exporting spans over OTLP/HTTP (the OpenTelemetry environment variables). */
export interface TracingSettings {
  /** The traces address, e.g. `http://collector:4318/v1/traces`. */
  readonly tracesUrl: string
  /** `OTEL_SERVICE_NAME` (or `service.name` of `OTEL_RESOURCE_ATTRIBUTES`), default `postwire`. */
  readonly serviceName: string
  /** `OTEL_EXPORTER_OTLP_HEADERS` / `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, e.g. an API key of the collector. */
  readonly headers: Readonly<Record<string, string>>
  /** `OTEL_BSP_SCHEDULE_DELAY`: how often spans are sent, in milliseconds (default 5000). */
  readonly exportIntervalMs: number
}

/** Request body limits, in bytes. */
export interface BodyLimitSettings {
  /** `POSTWIRE_MAX_BODY_BYTES`: any JSON body (default 1 MiB); a batch of posts may be 8 times larger. */
  readonly json: number
  /** `POSTWIRE_MAX_MEDIA_BODY_BYTES`: `POST /v1/media`, whose inline base64 may decode to 10 MiB (default 14 MiB). */
  readonly media: number
}

/** The default body limits. */
export const defaultBodyLimits: BodyLimitSettings = { json: 1024 * 1024, media: 14 * 1024 * 1024 }

/** The server's settings. */
export class ServerConfig extends Context.Service<ServerConfig, ServerSettings>()("postwire/ServerConfig") {
  static readonly layer = (settings: ServerSettings): Layer.Layer<ServerConfig> => Layer.succeed(ServerConfig)(settings)
}

/** Plain decimal digits (spaces around allowed) as a number; `NaN` for anything else (`1e4`, `0x50`, `-1`). */
const digits = (raw: string): number => (/^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN)

/** A configuration value was wrong; the message names it and says why. */
export class ConfigProblem extends Error {
  constructor(
    readonly setting: string,
    detail: string
  ) {
    super(`Invalid configuration ${setting}: ${detail}`)
    this.name = "ConfigProblem"
  }
}

const positiveInt = (setting: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined || raw === "") return fallback
  const n = digits(raw)
  if (!Number.isSafeInteger(n) || n <= 0) throw new ConfigProblem(setting, `expected a positive integer, got "${raw}"`)
  return n
}

/** A whole number of milliseconds from 0 up; `fallback` when unset. */
const wholeNumber = (setting: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined || raw === "") return fallback
  const n = digits(raw)
  if (!Number.isSafeInteger(n)) throw new ConfigProblem(setting, `expected a whole number of milliseconds, got "${raw}"`)
  return n
}

/** A flag given with nothing after it (`--port=`) is a mistake, not "use the default". */
const flagValue = (flag: string, raw: string | undefined): string | undefined => {
  if (raw !== undefined && raw.trim() === "") throw new ConfigProblem(flag, "expected a value, got an empty one")
  return raw
}

/** Command-line flags of `postwire serve`. */
export interface ServeFlags {
  readonly port?: string | undefined
  readonly host?: string | undefined
  readonly dataDir?: string | undefined
  readonly databaseUrl?: string | undefined
  readonly role?: string | undefined
  readonly trustedProxies?: string | undefined
  /**
   * Platform plugins served beside the built-in four (`--plugin`, `POSTWIRE_PLUGINS`, loaded by
   * the command): each one's settings are read from the environment by its `env`, like the built-ins'.
   */
  readonly plugins?: ReadonlyArray<PlatformPlugin> | undefined
}

/** The shortest admin token accepted: a shorter one can be guessed. */
export const adminTokenMinLength = 32

/** Resolves settings from flags (first) and the environment; throws `ConfigProblem` naming a bad value. */
export const resolveSettings = (flags: ServeFlags, env: Readonly<Record<string, string | undefined>>): ServerSettings => {
  const portSetting = flags.port !== undefined ? "--port" : "PORT"
  const port = positiveInt(portSetting, flagValue("--port", flags.port) ?? env.PORT, 8080)
  if (port > 65535) throw new ConfigProblem(portSetting, `expected 1-65535, got ${port}`)
  const role = flagValue("--role", flags.role) ?? (env.POSTWIRE_ROLE || undefined) ?? "all"
  if (role !== "api" && role !== "worker" && role !== "all") {
    throw new ConfigProblem(flags.role !== undefined ? "--role" : "POSTWIRE_ROLE", `expected api, worker or all, got "${role}"`)
  }
  const host = flagValue("--host", flags.host) ?? (env.HOST || undefined) ?? "0.0.0.0"
  if (/\s/.test(host)) throw new ConfigProblem(flags.host !== undefined ? "--host" : "HOST", `expected a host name or address, got "${host}"`)
  const dataDir = flagValue("--data-dir", flags.dataDir) ?? (env.POSTWIRE_DATA_DIR || undefined) ?? "./.postwire"
  const adminToken = env.POSTWIRE_ADMIN_TOKEN?.trim() || undefined
  if (adminToken !== undefined && !/^[\x21-\x7e]+$/.test(adminToken)) {
    throw new ConfigProblem("POSTWIRE_ADMIN_TOKEN", "expected printable characters without spaces")
  }
  if (adminToken !== undefined && adminToken.length < adminTokenMinLength) {
    throw new ConfigProblem(
      "POSTWIRE_ADMIN_TOKEN",
      `expected at least ${adminTokenMinLength} characters, got ${adminToken.length} (generate one with: openssl rand -hex 32)`
    )
  }
  const databaseUrl = flagValue("--database-url", flags.databaseUrl) ?? env.DATABASE_URL
  if (databaseUrl !== undefined && databaseUrl !== "" && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigProblem(flags.databaseUrl ? "--database-url" : "DATABASE_URL", "expected a postgres:// URL")
  }
  const secrets = masterSecrets(env)
  const publicUrl = (env.POSTWIRE_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, "")
  try {
    const u = new URL(publicUrl)
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error()
  } catch {
    throw new ConfigProblem("POSTWIRE_PUBLIC_URL", `expected an http(s) URL, got "${publicUrl}"`)
  }
  const flag = env.POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS
  if (flag !== undefined && flag !== "" && flag !== "0" && flag !== "1") {
    throw new ConfigProblem("POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS", `expected 1 or 0, got "${flag}"`)
  }
  const mcpSkip = env.POSTWIRE_MCP_ALLOW_SKIP_APPROVAL
  if (mcpSkip !== undefined && mcpSkip !== "" && mcpSkip !== "0" && mcpSkip !== "1") {
    throw new ConfigProblem("POSTWIRE_MCP_ALLOW_SKIP_APPROVAL", `expected 1 or 0, got "${mcpSkip}"`)
  }
  const smtpUrl = env.POSTWIRE_SMTP_URL === "" ? undefined : env.POSTWIRE_SMTP_URL
  if (smtpUrl !== undefined) {
    let protocol = ""
    try {
      protocol = new URL(smtpUrl).protocol
    } catch {
      // reported below
    }
    if (protocol !== "smtp:" && protocol !== "smtps:") {
      throw new ConfigProblem("POSTWIRE_SMTP_URL", "expected an smtp:// or smtps:// URL")
    }
  }
  const mailFrom = env.POSTWIRE_MAIL_FROM || `Postwire <no-reply@${new URL(publicUrl).hostname}>`
  if (!/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(mailFrom.trim())) {
    throw new ConfigProblem("POSTWIRE_MAIL_FROM", `expected an address such as "Postwire <no-reply@example.com>", got "${mailFrom}"`)
  }
  return {
    port,
    host,
    dataDir,
    databaseUrl: databaseUrl === "" ? undefined : databaseUrl,
    database: databaseSettings(env),
    role,
    secrets,
    adminToken,
    publicUrl,
    unsafeAllowLoopbackWebhooks: flag === "1",
    rateLimitPerKey: positiveInt("POSTWIRE_RATE_LIMIT_PER_KEY", env.POSTWIRE_RATE_LIMIT_PER_KEY, 120),
    rateLimitPostsCreate: positiveInt("POSTWIRE_RATE_LIMIT_POSTS_CREATE", env.POSTWIRE_RATE_LIMIT_POSTS_CREATE, 30),
    rateLimitPublic: positiveInt("POSTWIRE_RATE_LIMIT_PUBLIC", env.POSTWIRE_RATE_LIMIT_PUBLIC, 300),
    logRequests: env.POSTWIRE_LOG_REQUESTS === "1",
    smtpUrl,
    mailFrom: mailFrom.trim(),
    publishing: publishingSettings(env),
    platforms: platformSettings(env, flags.plugins ?? []),
    mcpAllowSkipApproval: mcpSkip === "1",
    connect: connectSettings(env, flags.plugins ?? []),
    comments: commentSettings(env),
    analytics: analyticsSettings(env),
    metricsToken: metricsToken(env.POSTWIRE_METRICS_TOKEN),
    logFormat: logFormat(env.POSTWIRE_LOG_FORMAT),
    tracing: tracingSettings(env),
    bodyLimits: {
      json: positiveInt("POSTWIRE_MAX_BODY_BYTES", env.POSTWIRE_MAX_BODY_BYTES, defaultBodyLimits.json),
      media: positiveInt("POSTWIRE_MAX_MEDIA_BODY_BYTES", env.POSTWIRE_MAX_MEDIA_BODY_BYTES, defaultBodyLimits.media)
    },
    mediaS3: mediaS3Settings(env.POSTWIRE_MEDIA_S3_URL),
    logLevel: logLevel(env.POSTWIRE_LOG_LEVEL),
    trustedProxies: trustedProxies(
      flags.trustedProxies !== undefined ? "--trusted-proxies" : "POSTWIRE_TRUSTED_PROXIES",
      flagValue("--trusted-proxies", flags.trustedProxies) ?? env.POSTWIRE_TRUSTED_PROXIES
    )
  }
}

const logLevels = { trace: "Trace", debug: "Debug", info: "Info", warn: "Warn", error: "Error" } as const

const logLevel = (raw: string | undefined): ServerSettings["logLevel"] => {
  if (raw === undefined || raw.trim() === "") return "Info"
  const level = logLevels[raw.trim().toLowerCase() as keyof typeof logLevels]
  if (level === undefined) throw new ConfigProblem("POSTWIRE_LOG_LEVEL", `expected trace, debug, info, warn or error, got "${raw}"`)
  return level
}

const trustedProxies = (setting: string, raw: string | undefined): ClientAddress.TrustedProxies => {
  if (raw === undefined) return ClientAddress.none
  const parsed = ClientAddress.parse(raw)
  if (typeof parsed === "string") throw new ConfigProblem(setting, parsed)
  return parsed
}

const mediaS3Settings = (raw: string | undefined): S3Settings | undefined => {
  if (raw === undefined || raw.trim() === "") return undefined
  try {
    return parseS3Url(raw.trim())
  } catch (error) {
    throw new ConfigProblem("POSTWIRE_MEDIA_S3_URL", (error as Error).message)
  }
}

const metricsToken = (raw: string | undefined): string | undefined => {
  const token = raw?.trim()
  if (token === undefined || token === "") return undefined
  if (!/^[\x21-\x7e]+$/.test(token)) throw new ConfigProblem("POSTWIRE_METRICS_TOKEN", "expected printable characters without spaces")
  return token
}

const logFormat = (raw: string | undefined): LogFormat => {
  if (raw === undefined || raw === "" || raw === "text") return "text"
  if (raw === "json") return "json"
  throw new ConfigProblem("POSTWIRE_LOG_FORMAT", `expected text or json, got "${raw}"`)
}

/** `key=value,key2=value2` (values percent-encoded), as the OpenTelemetry variables write lists. */
const keyValues = (setting: string, raw: string | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  if (raw === undefined || raw.trim() === "") return out
  for (const entry of raw.split(",")) {
    const at = entry.indexOf("=")
    if (at <= 0) continue
    try {
      out[decodeURIComponent(entry.slice(0, at).trim())] = decodeURIComponent(entry.slice(at + 1).trim())
    } catch {
      throw new ConfigProblem(setting, "expected key=value pairs, percent-encoded")
    }
  }
  return out
}

/** Tracing from the OpenTelemetry environment variables; `undefined` (off) without an endpoint. */
const tracingSettings = (env: Readonly<Record<string, string | undefined>>): TracingSettings | undefined => {
  if (env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined
  const signal = httpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  const base = httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT)
  const tracesUrl = signal ?? (base === undefined ? undefined : `${base}/v1/traces`)
  if (tracesUrl === undefined) return undefined
  const attributes = keyValues("OTEL_RESOURCE_ATTRIBUTES", env.OTEL_RESOURCE_ATTRIBUTES)
  return {
    tracesUrl,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || attributes["service.name"] || "postwire",
    headers: {
      ...keyValues("OTEL_EXPORTER_OTLP_HEADERS", env.OTEL_EXPORTER_OTLP_HEADERS),
      ...keyValues("OTEL_EXPORTER_OTLP_TRACES_HEADERS", env.OTEL_EXPORTER_OTLP_TRACES_HEADERS)
    },
    exportIntervalMs: positiveInt("OTEL_BSP_SCHEDULE_DELAY", env.OTEL_BSP_SCHEDULE_DELAY, 5_000)
  }
}

/**
 * How a worker reads metrics: the schedule's steps, how many due targets one claim takes, and how
 * often an idle worker looks. The calls count against the account's hourly budget of comment
 * polling (`POSTWIRE_COMMENT_HOURLY_CALL_BUDGET`).
 */
export interface AnalyticsSettings {
  /** Readings while a target is young, every (`POSTWIRE_ANALYTICS_FREQUENT_EVERY_MS`, default 3600000: an hour). */
  readonly frequentEveryMs: number
  /** Readings are frequent up to this age (`POSTWIRE_ANALYTICS_FREQUENT_UNTIL_MS`, default 86400000: a day). */
  readonly frequentUntilMs: number
  /** Readings after that, every (`POSTWIRE_ANALYTICS_DAILY_EVERY_MS`, default 86400000). */
  readonly dailyEveryMs: number
  /** No reading after this age (`POSTWIRE_ANALYTICS_STOP_AFTER_MS`, default 2592000000: 30 days). */
  readonly stopAfterMs: number
  /** An account's metrics, every (`POSTWIRE_ANALYTICS_ACCOUNT_EVERY_MS`, default 86400000). */
  readonly accountEveryMs: number
  /** Due targets one claim takes (`POSTWIRE_ANALYTICS_CLAIM_LIMIT`, default 200). */
  readonly claimLimit: number
  /** How often an idle worker looks for due targets (`POSTWIRE_ANALYTICS_POLL_MS`, default 15000). */
  readonly pollMs: number
}

const analyticsSettings = (env: Readonly<Record<string, string | undefined>>): AnalyticsSettings => ({
  frequentEveryMs: positiveInt("POSTWIRE_ANALYTICS_FREQUENT_EVERY_MS", env.POSTWIRE_ANALYTICS_FREQUENT_EVERY_MS, 3_600_000),
  frequentUntilMs: positiveInt("POSTWIRE_ANALYTICS_FREQUENT_UNTIL_MS", env.POSTWIRE_ANALYTICS_FREQUENT_UNTIL_MS, 86_400_000),
  dailyEveryMs: positiveInt("POSTWIRE_ANALYTICS_DAILY_EVERY_MS", env.POSTWIRE_ANALYTICS_DAILY_EVERY_MS, 86_400_000),
  stopAfterMs: positiveInt("POSTWIRE_ANALYTICS_STOP_AFTER_MS", env.POSTWIRE_ANALYTICS_STOP_AFTER_MS, 2_592_000_000),
  accountEveryMs: positiveInt("POSTWIRE_ANALYTICS_ACCOUNT_EVERY_MS", env.POSTWIRE_ANALYTICS_ACCOUNT_EVERY_MS, 86_400_000),
  claimLimit: positiveInt("POSTWIRE_ANALYTICS_CLAIM_LIMIT", env.POSTWIRE_ANALYTICS_CLAIM_LIMIT, 200),
  pollMs: positiveInt("POSTWIRE_ANALYTICS_POLL_MS", env.POSTWIRE_ANALYTICS_POLL_MS, 15_000)
})

/** How a worker reads comments, and Meta's comment webhook. */
export interface CommentSettings {
  /** How often an idle worker looks for targets due a comment poll (`POSTWIRE_COMMENT_POLL_MS`, default 5000). */
  readonly pollMs: number
  /** Platform calls one account may spend on comment polls per clock hour (`POSTWIRE_COMMENT_HOURLY_CALL_BUDGET`, default 120). */
  readonly hourlyCallBudget: number
  /** Targets an instance polls at once (`POSTWIRE_COMMENT_CONCURRENCY`, default 8). */
  readonly concurrency: number
  /** The token Meta sends back when subscribing `GET /platform-hooks/meta` (`POSTWIRE_META_WEBHOOK_VERIFY_TOKEN`); unset refuses every subscription. */
  readonly metaVerifyToken: Redacted.Redacted<string> | undefined
  /** The app secrets a Meta webhook delivery may be signed with (the Meta, Instagram and Threads app secrets that are set). */
  readonly metaAppSecrets: ReadonlyArray<Redacted.Redacted<string>>
}

const commentSettings = (env: Readonly<Record<string, string | undefined>>): CommentSettings => ({
  pollMs: positiveInt("POSTWIRE_COMMENT_POLL_MS", env.POSTWIRE_COMMENT_POLL_MS, 5_000),
  hourlyCallBudget: positiveInt("POSTWIRE_COMMENT_HOURLY_CALL_BUDGET", env.POSTWIRE_COMMENT_HOURLY_CALL_BUDGET, 120),
  concurrency: positiveInt("POSTWIRE_COMMENT_CONCURRENCY", env.POSTWIRE_COMMENT_CONCURRENCY, 8),
  metaVerifyToken: secret(env.POSTWIRE_META_WEBHOOK_VERIFY_TOKEN),
  metaAppSecrets: [
    env.POSTWIRE_META_APP_SECRET,
    env.POSTWIRE_FACEBOOK_APP_SECRET,
    env.POSTWIRE_INSTAGRAM_APP_SECRET,
    env.POSTWIRE_THREADS_APP_SECRET
  ]
    .filter((value): value is string => value !== undefined && value !== "")
    .map((value) => Redacted.make(value))
})

/** `POSTWIRE_SECRET` or `POSTWIRE_SECRET_FILE`, checked (docs/configuration.md); empty when neither is set. */
const masterSecrets = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<Redacted.Redacted<string>> => {
  const value = env.POSTWIRE_SECRET
  const file = env.POSTWIRE_SECRET_FILE
  if (value && file) throw new ConfigProblem("POSTWIRE_SECRET", "set it or POSTWIRE_SECRET_FILE, not both")
  try {
    if (value) return MasterSecrets.parseList(value).map((secret) => Redacted.make(secret))
    if (!file) return []
    let text: string
    try {
      text = readFileSync(file, "utf8")
    } catch (error) {
      throw new ConfigProblem("POSTWIRE_SECRET_FILE", `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`)
    }
    return MasterSecrets.parseFile(text).map((secret) => Redacted.make(secret))
  } catch (error) {
    if (error instanceof MasterSecrets.MalformedSecrets) {
      throw new ConfigProblem(value ? "POSTWIRE_SECRET" : `POSTWIRE_SECRET_FILE (${file})`, error.detail)
    }
    throw error
  }
}

/** How a worker publishes. */
export interface PublishingSettings {
  /** Targets an instance works on at once (`POSTWIRE_PUBLISH_CONCURRENCY`, default 128). */
  readonly concurrency: number
  /** Targets of one account at its platform at once, across instances (`POSTWIRE_PUBLISH_ACCOUNT_CONCURRENCY`, default 4). */
  readonly accountConcurrency: number
  /** How long a claim on a target lasts unless renewed (`POSTWIRE_PUBLISH_LEASE_MS`, default 60000). */
  readonly leaseMs: number
  /** How often an idle worker looks for due targets (`POSTWIRE_PUBLISH_POLL_MS`, default 1000). */
  readonly pollMs: number
  /**
   * How long a stopping worker lets the targets it is publishing finish before it interrupts
   * them and gives their claims back (`POSTWIRE_PUBLISH_SHUTDOWN_GRACE_MS`, default 10000; 0
   * gives them back at once).
   */
  readonly shutdownGraceMs: number
  /**
   * The longest a publishing step may go without progress before its lease is left to run out
   * and another instance recovers the target (`POSTWIRE_PUBLISH_STEP_TIMEOUT_MS`, default 300000).
   */
  readonly stepTimeoutMs?: number | undefined
}

const publishingSettings = (env: Readonly<Record<string, string | undefined>>): PublishingSettings => {
  const leaseMs = positiveInt("POSTWIRE_PUBLISH_LEASE_MS", env.POSTWIRE_PUBLISH_LEASE_MS, 60_000)
  if (leaseMs < 1_000) throw new ConfigProblem("POSTWIRE_PUBLISH_LEASE_MS", `expected at least 1000, got ${leaseMs}`)
  return {
    concurrency: positiveInt("POSTWIRE_PUBLISH_CONCURRENCY", env.POSTWIRE_PUBLISH_CONCURRENCY, 128),
    accountConcurrency: positiveInt("POSTWIRE_PUBLISH_ACCOUNT_CONCURRENCY", env.POSTWIRE_PUBLISH_ACCOUNT_CONCURRENCY, 4),
    leaseMs,
    pollMs: positiveInt("POSTWIRE_PUBLISH_POLL_MS", env.POSTWIRE_PUBLISH_POLL_MS, 1_000),
    shutdownGraceMs: wholeNumber("POSTWIRE_PUBLISH_SHUTDOWN_GRACE_MS", env.POSTWIRE_PUBLISH_SHUTDOWN_GRACE_MS, 10_000),
    stepTimeoutMs: positiveInt("POSTWIRE_PUBLISH_STEP_TIMEOUT_MS", env.POSTWIRE_PUBLISH_STEP_TIMEOUT_MS, 300_000)
  }
}

/** An http(s) address, without a trailing slash; `undefined` when unset. */
const httpUrl = (setting: string, raw: string | undefined): string | undefined => {
  if (raw === undefined || raw === "") return undefined
  let protocol = ""
  try {
    protocol = new URL(raw).protocol
  } catch {
    // reported below
  }
  if (protocol !== "http:" && protocol !== "https:") throw new ConfigProblem(setting, `expected an http(s) URL, got "${raw}"`)
  return raw.replace(/\/$/, "")
}

/** An http(s) address kept exactly as written (TikTok's authorize page needs its trailing slash). */
const exactUrl = (setting: string, raw: string | undefined): string | undefined => {
  const checked = httpUrl(setting, raw)
  return checked === undefined ? undefined : raw!.trim()
}

/** A token refresh address; `none` turns refreshing off. */
const refreshUrl = (setting: string, raw: string | undefined): string | null | undefined =>
  raw === "none" ? null : httpUrl(setting, raw)

const secret = (raw: string | undefined) => (raw === undefined || raw === "" ? undefined : Redacted.make(raw))

const optionalInt = (setting: string, raw: string | undefined): number | undefined =>
  raw === undefined || raw === "" ? undefined : positiveInt(setting, raw, 0)

/** The fields that are set: the platform adapters fill in the rest with their defaults. */
const given = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>
  }

/** The reader a plugin's `env` reads the server's environment with (see `Plugin.EnvReader`). */
const envReader = (env: Readonly<Record<string, string | undefined>>): Plugin.EnvReader => ({
  text: (name) => env[name]?.trim() || undefined,
  secret: (...names) => secret(names.map((name) => env[name]).find((value) => value !== undefined && value !== "")),
  url: (name) => httpUrl(name, env[name]),
  exactUrl: (name) => exactUrl(name, env[name]),
  refreshUrl: (name) => refreshUrl(name, env[name]),
  pollIntervalMs: optionalInt("POSTWIRE_PLATFORM_POLL_INTERVAL_MS", env.POSTWIRE_PLATFORM_POLL_INTERVAL_MS)
})

/** What the environment gives each registered platform's two sides, by the platform's name. */
const pluginSettings = (
  env: Readonly<Record<string, string | undefined>>,
  side: "publish" | "connect",
  plugins: ReadonlyArray<PlatformPlugin>
) => {
  const read = envReader(env)
  return Object.fromEntries(
    [...Registry.builtins, ...plugins].flatMap((plugin) => {
      const fields = plugin.env?.(read)[side]
      return fields === undefined ? [] : [[plugin.name, given(fields as Record<string, unknown>)]]
    })
  )
}

const platformSettings = (
  env: Readonly<Record<string, string | undefined>>,
  plugins: ReadonlyArray<PlatformPlugin>
): PlatformRouter.Options => {
  const timeout = optionalInt("POSTWIRE_PLATFORM_TIMEOUT_MS", env.POSTWIRE_PLATFORM_TIMEOUT_MS)
  return {
    ...pluginSettings(env, "publish", plugins),
    ...(plugins.length === 0 ? {} : { plugins }),
    retry: given({
      attempts: optionalInt("POSTWIRE_PLATFORM_RETRY_ATTEMPTS", env.POSTWIRE_PLATFORM_RETRY_ATTEMPTS),
      baseDelayMs: optionalInt("POSTWIRE_PLATFORM_RETRY_DELAY_MS", env.POSTWIRE_PLATFORM_RETRY_DELAY_MS)
    }),
    ...(timeout === undefined ? {} : { requestTimeoutMs: timeout })
  }
}

/** The path of the public address without a trailing slash: `""`, or `/postwire` for a server mounted there. */
export const publicPathOf = (publicUrl: string): string => new URL(publicUrl).pathname.replace(/\/+$/, "")

/**
 * Connecting accounts: each platform's app credentials and its authorization and token hosts,
 * read by its plugin (`env`). The API hosts are the publishing ones.
 */
const connectSettings = (
  env: Readonly<Record<string, string | undefined>>,
  plugins: ReadonlyArray<PlatformPlugin>
): ServerSettings["connect"] => pluginSettings(env, "connect", plugins)
