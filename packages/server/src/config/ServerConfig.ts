/**
 * The server's typed configuration, from flags and environment variables
 * (documented in docs/configuration.md).
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"

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
  readonly role: Role
  /** Bearer token of the admin API; generated and stored on first start when absent. */
  readonly adminToken: string | undefined
  /** Base of approval and docs links. */
  readonly publicUrl: string
  readonly unsafeAllowLoopbackWebhooks: boolean
  /** Requests per minute per key. */
  readonly rateLimitPerKey: number
  /** POST /posts per minute per key. */
  readonly rateLimitPostsCreate: number
  /** Log every request (off by default on the hot path). */
  readonly logRequests: boolean
}

/** The server's settings. */
export class ServerConfig extends Context.Service<ServerConfig, ServerSettings>()("postwire/ServerConfig") {
  static readonly layer = (settings: ServerSettings): Layer.Layer<ServerConfig> => Layer.succeed(ServerConfig)(settings)
}

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
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new ConfigProblem(setting, `expected a positive integer, got "${raw}"`)
  return n
}

/** Command-line flags of `postwire serve`. */
export interface ServeFlags {
  readonly port?: string | undefined
  readonly host?: string | undefined
  readonly dataDir?: string | undefined
  readonly databaseUrl?: string | undefined
  readonly role?: string | undefined
}

/** Resolves settings from flags (first) and the environment; throws `ConfigProblem` naming a bad value. */
export const resolveSettings = (flags: ServeFlags, env: Readonly<Record<string, string | undefined>>): ServerSettings => {
  const port = positiveInt(flags.port !== undefined ? "--port" : "PORT", flags.port ?? env.PORT, 8080)
  if (port > 65535) throw new ConfigProblem("--port", `expected 1-65535, got ${port}`)
  const role = flags.role ?? env.POSTWIRE_ROLE ?? "all"
  if (role !== "api" && role !== "worker" && role !== "all") {
    throw new ConfigProblem("--role", `expected api, worker or all, got "${role}"`)
  }
  const databaseUrl = flags.databaseUrl ?? env.DATABASE_URL
  if (databaseUrl !== undefined && databaseUrl !== "" && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigProblem(flags.databaseUrl ? "--database-url" : "DATABASE_URL", "expected a postgres:// URL")
  }
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
  return {
    port,
    host: flags.host ?? env.HOST ?? "0.0.0.0",
    dataDir: flags.dataDir ?? env.POSTWIRE_DATA_DIR ?? "./.postwire",
    databaseUrl: databaseUrl === "" ? undefined : databaseUrl,
    role,
    adminToken: env.POSTWIRE_ADMIN_TOKEN === "" ? undefined : env.POSTWIRE_ADMIN_TOKEN,
    publicUrl,
    unsafeAllowLoopbackWebhooks: flag === "1",
    rateLimitPerKey: positiveInt("POSTWIRE_RATE_LIMIT_PER_KEY", env.POSTWIRE_RATE_LIMIT_PER_KEY, 120),
    rateLimitPostsCreate: positiveInt("POSTWIRE_RATE_LIMIT_POSTS_CREATE", env.POSTWIRE_RATE_LIMIT_POSTS_CREATE, 30),
    logRequests: env.POSTWIRE_LOG_REQUESTS === "1"
  }
}
