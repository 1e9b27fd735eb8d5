/**
 * One process per embedded data directory: a lock file holding the owner's pid. Two servers on
 * one directory would each answer from their own copy of the database and both publish. While
 * held, the directory and everything in it is owner-only (`0700`/`0600`, see `PrivateFiles`).
 *
 * @since 0.1.0
 */
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join, resolve } from "node:path"
import { Data, Effect } from "effect"
import { PrivateFiles } from "@postwire/store-sql"

/** Another live process holds the data directory. */
export class DataDirectoryInUse extends Data.TaggedError("DataDirectoryInUse")<{
  readonly dataDir: string
  readonly pid: number
}> {}

/** The data directory could not be created or written. */
export class DataDirectoryNotWritable extends Data.TaggedError("DataDirectoryNotWritable")<{
  readonly dataDir: string
  readonly cause: unknown
}> {}

/** The lock file's name inside the data directory. */
export const lockFileName = "postwire.lock"

/**
 * Lock files this process holds now. A lock file naming this process's pid is ours only when it
 * is listed here (a second engine in the same process); otherwise it was left by an earlier
 * process that had the same pid (a restarted container), and is stale.
 */
const heldHere = new Set<string>()

/**
 * What the server keeps in the data directory and repairs: the database, media, mail, the first
 * start's secrets, the lock. Not the master secret's file: one found readable by others is
 * refused at start (it may have been read; see ServerSecrets), never quietly repaired.
 */
const ownEntries: ReadonlyArray<string> = ["db", "media", "mail", "first-start-secrets", lockFileName]

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const holderOf = (path: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Sets the directory `0700`; one the process may write but not own (a shared directory) stays as it is. */
const closeToOthers = (dataDir: string) => {
  try {
    chmodSync(dataDir, 0o700)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error
  }
}

/** Creates the lock file exclusively; false when it already exists. */
const tryCreate = (path: string): boolean => {
  try {
    const fd = openSync(path, "wx", 0o600)
    writeSync(fd, `${process.pid}\n`)
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/**
 * Takes the data directory for this process until the scope closes. A lock left by a process
 * that no longer runs (killed, crashed) is taken over; one held by a live process fails with
 * {@link DataDirectoryInUse}.
 */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const path = resolve(dataDir, lockFileName)
      // Everything in the data directory (database, media, mail, secrets) is its owner's alone,
      // whatever the umask: another local user reads and writes nothing there.
      yield* PrivateFiles.ownerOnlyUmask
      yield* Effect.try({
        try: () => {
          mkdirSync(dataDir, { recursive: true, mode: 0o700 })
          closeToOthers(dataDir)
          // What Postwire keeps there, repaired if an older version or another umask left it open;
          // anything else an operator put in the directory is left as it is.
          for (const entry of ownEntries) PrivateFiles.makePrivate(join(dataDir, entry))
        },
        catch: (cause) => new DataDirectoryNotWritable({ dataDir, cause })
      })
      // Two attempts: the second after removing a stale lock. Removing then creating with `wx`
      // means two processes taking over the same stale lock cannot both win.
      for (let attempt = 0; attempt < 2; attempt++) {
        const created = yield* Effect.try({
          try: () => tryCreate(path),
          catch: (cause) => new DataDirectoryNotWritable({ dataDir, cause })
        })
        if (created) {
          heldHere.add(path)
          return path
        }
        const holder = holderOf(path)
        if (holder === process.pid && heldHere.has(path)) return yield* new DataDirectoryInUse({ dataDir, pid: holder })
        if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
          return yield* new DataDirectoryInUse({ dataDir, pid: holder })
        }
        yield* Effect.logInfo(`taking over the stale lock of process ${holder ?? "unknown"} on ${dataDir}`)
        rmSync(path, { force: true })
      }
      const holder = holderOf(path) ?? 0
      return yield* new DataDirectoryInUse({ dataDir, pid: holder })
    }),
    (path) =>
      Effect.sync(() => {
        heldHere.delete(path)
        if (holderOf(path) === process.pid) rmSync(path, { force: true })
      })
  )
