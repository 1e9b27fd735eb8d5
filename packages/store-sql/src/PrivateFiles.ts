/**
 * Files only their owner reads: the embedded database and everything beside it in the data
 * directory are `0700` (directories) and `0600` (files), whatever the umask the process was
 * started with. PGlite writes its files itself (and keeps creating them: WAL segments,
 * relations, temporary files), so a `chmod` after the fact would always lag behind: while a
 * data directory is held the process umask is narrowed to owner-only ({@link ownerOnlyUmask}),
 * and {@link makePrivate} repairs a directory written before (an older version, another umask).
 *
 * The umask is the process's: holders are counted, and the umask found by the first is put
 * back when the last lets go, so an application embedding the engine gets its own umask back
 * when the database closes. Node's worker threads cannot change the umask: there, only
 * {@link makePrivate} applies.
 *
 * @since 0.6.0
 */
import { chmodSync, lstatSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { Effect, type Scope } from "effect"

let holders = 0
let previous: number | undefined

const narrow = (): void => {
  holders += 1
  if (holders > 1) return
  try {
    // Keep whatever the process already withholds, and withhold everything from group and others.
    const found = process.umask(0o077)
    process.umask(found | 0o077)
    previous = found
  } catch {
    previous = undefined
  }
}

const restore = (): void => {
  holders -= 1
  if (holders > 0 || previous === undefined) return
  process.umask(previous)
  previous = undefined
}

/**
 * While the scope lives, every file and directory the process creates is owner-only (umask
 * `077` added to the process's own).
 *
 * @example
 * ```ts
 * yield* PrivateFiles.ownerOnlyUmask // inside Effect.scoped or a layer
 * ```
 */
export const ownerOnlyUmask: Effect.Effect<void, never, Scope.Scope> = Effect.acquireRelease(Effect.sync(narrow), () =>
  Effect.sync(restore)
)

/**
 * Takes group and other permissions off `path` and everything under it (directories keep their
 * owner's `rwx`); symbolic links are left alone and not followed. A file that vanishes during
 * the walk (PGlite removes temporary files) is skipped.
 */
export const makePrivate = (path: string): void => {
  let stat: ReturnType<typeof lstatSync>
  try {
    stat = lstatSync(path)
  } catch {
    return
  }
  if (stat.isSymbolicLink()) return
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== 0o700) tryChmod(path, 0o700)
    let entries: Array<string> = []
    try {
      entries = readdirSync(path)
    } catch {
      return
    }
    for (const entry of entries) makePrivate(join(path, entry))
    return
  }
  if ((stat.mode & 0o077) !== 0) tryChmod(path, stat.mode & 0o700)
}

const tryChmod = (path: string, mode: number): void => {
  try {
    chmodSync(path, mode)
  } catch {
    // Gone meanwhile, or not ours to change: nothing more can be done for it here.
  }
}
