/**
 * Why `postwire serve` or `postwire migrate` could not start, in one or two lines naming the
 * cause and the fix: what an operator reads instead of a stack trace.
 *
 * @since 0.1.0
 */
import { Cause } from "effect"
import { Migrations } from "@postwire/store-sql"
import type { ServerSettings } from "../config/ServerConfig.ts"
import { DataDirectoryInUse, DataDirectoryNotWritable } from "../DataDirectoryLock.ts"
import { SecretFileExposed, SecretFileUnusable, SecretRequired } from "../secrets/ServerSecrets.ts"

interface NodeProblem {
  readonly code?: unknown
  readonly syscall?: unknown
  readonly hostname?: unknown
  readonly address?: unknown
  readonly port?: unknown
  readonly path?: unknown
  readonly message?: unknown
}

/** Every error in the cause and every error they were caused by, outermost first. */
const problemsIn = (cause: Cause.Cause<unknown>): ReadonlyArray<unknown> => {
  const found: Array<unknown> = []
  const visit = (value: unknown) => {
    if (value === null || value === undefined || found.includes(value)) return
    found.push(value)
    if (typeof value === "object") {
      if ("cause" in value) visit(value.cause)
      if ("reason" in value) visit(value.reason)
    }
  }
  for (const reason of cause.reasons) {
    if (Cause.isFailReason(reason)) visit(reason.error)
    else if (Cause.isDieReason(reason)) visit(reason.defect)
  }
  return found
}

const codeOf = (problem: unknown): string | undefined =>
  typeof problem === "object" && problem !== null && typeof (problem as NodeProblem).code === "string"
    ? ((problem as NodeProblem).code as string)
    : undefined

/** Where the database is, without its credentials. */
const databaseAt = (databaseUrl: string) => {
  try {
    const url = new URL(databaseUrl)
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`
  } catch {
    return "the address in DATABASE_URL"
  }
}

const messageOf = (problem: unknown) =>
  problem instanceof Error ? problem.message : typeof problem === "string" ? problem : String(problem)

/**
 * The lines to print for a start-up failure; `undefined` when the cause is only an interruption
 * (a stop signal), which is not a failure.
 */
/**
 * How the fix names a setting: the command's flags and variables, or an embedding app's options.
 */
export interface SettingNames {
  readonly dataDir: string
  /** The line for PostgreSQL without a master secret. */
  readonly secretMissing: string
}

/** The command line's names (`postwire serve`). */
export const commandSettingNames: SettingNames = {
  dataDir: "--data-dir or POSTWIRE_DATA_DIR",
  secretMissing:
    "POSTWIRE_SECRET is not set: on PostgreSQL set it (or POSTWIRE_SECRET_FILE) on every instance, generated with `postwire secrets generate`."
}

export const explainStartupFailure = (
  cause: Cause.Cause<unknown>,
  settings: Pick<ServerSettings, "port" | "host" | "dataDir" | "databaseUrl">,
  names: SettingNames = commandSettingNames
): string | undefined => {
  if (Cause.hasInterruptsOnly(cause)) return undefined
  const problems = problemsIn(cause)
  const database = settings.databaseUrl === undefined ? undefined : databaseAt(settings.databaseUrl)
  for (const problem of problems) {
    if (problem instanceof SecretRequired) {
      return names.secretMissing
    }
    if (problem instanceof SecretFileExposed) {
      return `The secret file ${problem.path} can be read by other users (mode ${problem.mode.toString(8).padStart(4, "0")}): restrict it with \`chmod 600 ${problem.path}\`.`
    }
    if (problem instanceof SecretFileUnusable) {
      return `The secret file ${problem.path} is unusable: ${problem.detail}; restore it from a backup (docs/operations.md).`
    }
    if (problem instanceof Migrations.SchemaFromNewerVersion) {
      return `The database was migrated by a newer version of Postwire (it has ${problem.unknown.join(", ")}, which this version does not know).\nRun the newer version, or restore a backup taken before the upgrade.`
    }
    if (problem instanceof DataDirectoryInUse) {
      return `The data directory ${problem.dataDir} is in use by another Postwire process (pid ${problem.pid}).\nStop that process, or give this one its own directory with ${names.dataDir}.`
    }
    if (problem instanceof DataDirectoryNotWritable) {
      const code = problems.map(codeOf).find((c) => c !== undefined)
      return `Cannot write to the data directory ${problem.dataDir}${code === undefined ? "" : ` (${code})`}.\nChoose a writable directory with ${names.dataDir}.`
    }
  }
  for (const problem of problems) {
    const code = codeOf(problem)
    const node = problem as NodeProblem
    switch (code) {
      case "EADDRINUSE":
        return `Port ${settings.port} is already in use on ${settings.host}.\nStop the process using it, or choose another port with --port or PORT.`
      case "EADDRNOTAVAIL":
        return `Cannot listen on ${settings.host}: it is not an address of this machine.\nChoose one with --host or HOST (0.0.0.0 listens on every address).`
      case "ENOTFOUND":
      case "EAI_AGAIN":
        if (node.hostname === settings.host || database === undefined) {
          return `Cannot listen on ${settings.host}: no such host.\nChoose an address of this machine with --host or HOST (0.0.0.0 listens on every address).`
        }
        return `The PostgreSQL host in DATABASE_URL (${database}) was not found.\nCheck the host name in DATABASE_URL.`
      case "EACCES":
        if (node.syscall === "listen") {
          return `Not permitted to listen on port ${settings.port}.\nChoose a port above 1023 with --port or PORT, or grant the permission.`
        }
        break
      case "ECONNREFUSED":
      case "ECONNRESET":
      case "ETIMEDOUT":
      case "EHOSTUNREACH":
        if (database !== undefined) {
          return `PostgreSQL is not reachable at ${database} (${code}).\nStart it, or correct DATABASE_URL.`
        }
        break
      case "28P01":
      case "28000":
        return `PostgreSQL at ${database ?? "DATABASE_URL"} refused the credentials: ${messageOf(problem)}.\nCorrect the user and password in DATABASE_URL.`
      case "3D000":
        return `PostgreSQL at ${database ?? "DATABASE_URL"}: ${messageOf(problem)}.\nCreate it (createdb), or correct the database name in DATABASE_URL.`
    }
  }
  const fsProblem = problems.find((p) => ["EACCES", "EROFS", "ENOTDIR", "EPERM"].includes(codeOf(p) ?? ""))
  if (fsProblem !== undefined) {
    const path = (fsProblem as NodeProblem).path
    return `Cannot write to ${typeof path === "string" ? path : settings.dataDir} (${codeOf(fsProblem)}).\nChoose a writable data directory with ${names.dataDir}.`
  }
  const innermost = problems.at(-1)
  return `Postwire could not start: ${innermost === undefined ? "unknown failure" : messageOf(innermost)}.\nRun the same command with --debug to see the details.`
}

/** The exit code of a start-up failure: 2 for a configuration problem (the master secret), else 1. */
export const startupExitCode = (cause: Cause.Cause<unknown>): 1 | 2 =>
  problemsIn(cause).some((p) => p instanceof SecretRequired || p instanceof SecretFileExposed || p instanceof SecretFileUnusable) ? 2 : 1
