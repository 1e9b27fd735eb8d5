/**
 * Where the server's master secrets come from at start-up, never from the database alone:
 * `POSTWIRE_SECRET` / `POSTWIRE_SECRET_FILE`; else, on the embedded default, the file
 * `<data dir>/secret` (generated once, mode 0600). On PostgreSQL the variable is required: a
 * secret kept in the database would let a dump open everything it seals, so a start without it
 * is refused (exit 2, one line), except on a database served by 0.1, which keeps its secret in
 * the database (with a warning at every start) until it is set and resealed.
 *
 * Upgrading from 0.1, whose secret lived in the `settings` table (`server_secret`): the
 * embedded default moves it into the data-directory file and deletes it from the database;
 * with `POSTWIRE_SECRET` set, it stays an older key (it still opens and verifies) until
 * `postwire secrets reseal` has re-sealed every credential and deletes it. Steps:
 * docs/operations.md.
 *
 * @since 0.2.0
 */
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs"
import { join } from "node:path"
import { Data, Effect, Option, Redacted } from "effect"
import { Keyring, Store } from "@postwire/core"
import type { ServerSettings } from "../config/ServerConfig.ts"
import * as MasterSecrets from "../config/MasterSecrets.ts"

/** The name of the secret file in the data directory. */
export const secretFileName = "secret"

/** The `settings` row where 0.1 kept its secret. */
export const legacySettingName = "server_secret"

/** PostgreSQL without `POSTWIRE_SECRET` once the database was served with one: it cannot be guessed. */
export class SecretRequired extends Data.TaggedError("SecretRequired")<{}> {}

/** The data directory's secret file can be read by other users. */
export class SecretFileExposed extends Data.TaggedError("SecretFileExposed")<{
  readonly path: string
  readonly mode: number
}> {}

/** The data directory's secret file cannot be read, or holds no valid secret. */
export class SecretFileUnusable extends Data.TaggedError("SecretFileUnusable")<{
  readonly path: string
  readonly detail: string
}> {}

/** A problem with the master secret found at start-up: a configuration error (exit 2). */
export type SecretProblem = SecretRequired | SecretFileExposed | SecretFileUnusable

/** The master secrets the server runs with. */
export interface ResolvedSecrets {
  readonly keyring: Keyring.Keyring
  /** Where the newest came from, for the start-up log. */
  readonly source: "POSTWIRE_SECRET" | "data directory" | "database (legacy)"
  /** Whether the database still holds a 0.1 secret in use as an (older) key. */
  readonly legacyInDatabase: boolean
}

const secretFile = (dataDir: string) => join(dataDir, secretFileName)

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? "error"

/** Reads the data directory's secret file; `None` when there is none. */
const readSecretFile = (path: string): Effect.Effect<Option.Option<ReadonlyArray<string>>, SecretFileExposed | SecretFileUnusable> =>
  Effect.gen(function* () {
    const stat = yield* Effect.try({
      try: () => Option.some(statSync(path)),
      catch: (error) => error
    }).pipe(
      Effect.catch((error) =>
        codeOf(error) === "ENOENT"
          ? Effect.succeed(Option.none())
          : Effect.fail(new SecretFileUnusable({ path, detail: `cannot read it (${codeOf(error)})` }))
      )
    )
    if (Option.isNone(stat)) return Option.none()
    if (!stat.value.isFile()) return yield* new SecretFileUnusable({ path, detail: "it is not a file" })
    if ((stat.value.mode & 0o077) !== 0) return yield* new SecretFileExposed({ path, mode: stat.value.mode & 0o777 })
    const text = yield* Effect.try({
      try: () => readFileSync(path, "utf8"),
      catch: (error) => new SecretFileUnusable({ path, detail: `cannot read it (${codeOf(error)})` })
    })
    return Option.some(
      yield* Effect.try({
        try: () => MasterSecrets.parseFile(text),
        catch: (error) => new SecretFileUnusable({ path, detail: error instanceof Error ? error.message : String(error) })
      })
    )
  })

/**
 * Creates a secret file readable by its owner only, whole or not at all (written and synced
 * under a temporary name, then linked into place), so a crash never leaves a half-written
 * secret. False when the file already exists: another process created it first.
 */
export const createSecretFile = (path: string, secrets: ReadonlyArray<string>): boolean => {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`
  const fd = openSync(temporary, "wx", 0o600)
  try {
    writeSync(fd, MasterSecrets.formatFile(secrets))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(temporary, path)
    return true
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false
    throw error
  } finally {
    unlinkSync(temporary)
  }
}

/** The data directory's secrets: read, or created once (from the 0.1 database secret when there is one). */
const dataDirectorySecrets = (dataDir: string, legacy: Option.Option<string>) =>
  Effect.gen(function* () {
    const path = secretFile(dataDir)
    const existing = yield* readSecretFile(path)
    if (Option.isSome(existing)) return existing.value
    const secrets = Option.isSome(legacy) ? [legacy.value] : [MasterSecrets.generate()]
    const created = yield* Effect.try({
      try: () => {
        mkdirSync(dataDir, { recursive: true })
        return createSecretFile(path, secrets)
      },
      catch: (error) => new SecretFileUnusable({ path, detail: `cannot write it (${codeOf(error)})` })
    })
    if (!created) {
      const raced = yield* readSecretFile(path)
      if (Option.isSome(raced)) return raced.value
      return yield* new SecretFileUnusable({ path, detail: "it vanished while being created" })
    }
    yield* Effect.logInfo(
      Option.isSome(legacy) ? `moved the server secret out of the database into ${path}` : `generated the server secret in ${path}`
    )
    return secrets
  })

/**
 * The master secrets for these settings, moving a 0.1 database secret out where it can (see
 * the module's documentation). Fails with a {@link SecretProblem} an operator must fix.
 */
export const resolve = (settings: Pick<ServerSettings, "secrets" | "databaseUrl" | "dataDir">) =>
  Effect.gen(function* () {
    const store = yield* Store
    const legacy = yield* store.readSetting(legacySettingName).pipe(Effect.orDie)
    const configured = settings.secrets.map(Redacted.value)
    if (configured.length > 0) {
      // The 0.1 secret still opens what it sealed until `secrets reseal` deletes it.
      const older = Option.isSome(legacy) && !configured.includes(legacy.value) ? [legacy.value] : []
      return {
        keyring: Keyring.make([...configured, ...older]),
        source: "POSTWIRE_SECRET",
        legacyInDatabase: Option.isSome(legacy)
      } satisfies ResolvedSecrets
    }
    if (settings.databaseUrl !== undefined) {
      // A secret kept in the database would open, from a dump, everything it seals: PostgreSQL
      // needs POSTWIRE_SECRET. Only a database served by 0.1 keeps its own until resealed.
      if (Option.isNone(legacy)) return yield* new SecretRequired()
      yield* Effect.logWarning(
        "the server secret is still in the database: set POSTWIRE_SECRET and run `postwire secrets reseal` (docs/operations.md)"
      )
      return { keyring: Keyring.make([legacy.value]), source: "database (legacy)", legacyInDatabase: true } satisfies ResolvedSecrets
    }
    const secrets = yield* dataDirectorySecrets(settings.dataDir, legacy)
    if (Option.isSome(legacy)) {
      if (secrets.includes(legacy.value)) {
        // Safe in the file now (written and synced before this): the database copy goes.
        yield* store.deleteSetting(legacySettingName, legacy.value).pipe(Effect.orDie)
        return { keyring: Keyring.make(secrets), source: "data directory", legacyInDatabase: false } satisfies ResolvedSecrets
      }
      return {
        keyring: Keyring.make([...secrets, legacy.value]),
        source: "data directory",
        legacyInDatabase: true
      } satisfies ResolvedSecrets
    }
    return { keyring: Keyring.make(secrets), source: "data directory", legacyInDatabase: false } satisfies ResolvedSecrets
  })
