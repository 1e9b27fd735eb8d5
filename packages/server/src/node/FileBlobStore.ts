/**
 * Media bytes as files under a local directory: the default `BlobStore` of `postwire serve`
 * (`<data dir>/media`), and what an embedder on Node gives the engine for files on disk. It lives
 * in the server, beside the other Node implementations, so that `@postwire/core` keeps only the
 * `BlobStore` interface, its errors and the in-memory store, and runs wherever Effect does.
 *
 * Every write goes to a temporary file that is renamed into place when whole, so a reader never
 * sees half a file; the parts of a resumable upload are files in `<key>.parts/<reference>/`,
 * joined by streaming them one after another into the final file.
 *
 * @since 0.4.0
 */
import { randomUUID } from "node:crypto"
import { createReadStream } from "node:fs"
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Effect, Layer, Stream } from "effect"
import { BlobError, BlobStore, type BlobStoreShape, PartLengthMismatch } from "@postwire/core"

// A key names a file under the directory; keys are ours (`ws_…/med_…`), never a client's.
const pathOf = (directory: string, key: string) => join(directory, key)
const partsDirectory = (directory: string, key: string, reference: string) => join(directory, `${key}.parts`, reference)

/** Writes a stream to `path` through a temporary file, chunk by chunk; answers the bytes written. */
const writeFileFromStream = <E>(path: string, key: string, body: Stream.Stream<Uint8Array, E>) =>
  Effect.gen(function* () {
    const temporary = `${path}.${randomUUID()}.tmp`
    const handle = yield* Effect.tryPromise({
      try: async () => {
        await mkdir(dirname(path), { recursive: true })
        return open(temporary, "w")
      },
      catch: (cause) => new BlobError({ key, cause })
    })
    let written = 0
    const copy = Stream.runForEach(body, (chunk) =>
      Effect.tryPromise({
        try: () => handle.write(chunk),
        catch: (cause) => new BlobError({ key, cause })
      }).pipe(
        Effect.andThen(
          Effect.sync(() => {
            written += chunk.length
          })
        )
      )
    )
    const closed = Effect.promise(() => handle.close().catch(() => undefined))
    return yield* copy.pipe(
      Effect.ensuring(closed),
      Effect.flatMap(() =>
        Effect.tryPromise({ try: () => rename(temporary, path), catch: (cause) => new BlobError({ key, cause }) })
      ),
      Effect.map(() => written),
      Effect.onError(() => Effect.promise(() => rm(temporary, { force: true })))
    )
  })

const readFileStream = (path: string, key: string, range?: { readonly start: number; readonly end: number }) =>
  Stream.fromAsyncIterable<Uint8Array, BlobError>(
    createReadStream(path, range === undefined ? { highWaterMark: 256 * 1024 } : { ...range, highWaterMark: 256 * 1024 }),
    (cause) => new BlobError({ key, cause })
  )

/**
 * The files under `directory` as a `BlobStore`.
 *
 * @example
 * ```ts
 * const blobs = FileBlobStore.make("./.postwire/media")
 * ```
 */
export const make = (directory: string): BlobStoreShape => {
  const attempt = <A>(key: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => new BlobError({ key, cause }) })
  return {
    put: (key, bytes) =>
      attempt(key, async () => {
        const path = pathOf(directory, key)
        await mkdir(dirname(path), { recursive: true })
        const temporary = `${path}.${randomUUID()}.tmp`
        await writeFile(temporary, bytes)
        await rename(temporary, path)
      }),
    get: (key) => attempt(key, async () => new Uint8Array(await readFile(pathOf(directory, key)))),
    write: (key, body) => writeFileFromStream(pathOf(directory, key), key, body),
    read: (key, range) => readFileStream(pathOf(directory, key), key, range),
    readRange: (key, start, length) =>
      attempt(key, async () => {
        const handle = await open(pathOf(directory, key), "r")
        try {
          const buffer = new Uint8Array(length)
          const { bytesRead } = await handle.read(buffer, 0, length, start)
          return buffer.subarray(0, bytesRead)
        } finally {
          await handle.close()
        }
      }),
    size: (key) => attempt(key, async () => (await stat(pathOf(directory, key))).size),
    remove: (key) =>
      attempt(key, async () => {
        await rm(pathOf(directory, key), { force: true })
        await rm(join(directory, `${key}.parts`), { recursive: true, force: true })
      }),
    startParts: (key) =>
      attempt(key, async () => {
        const reference = randomUUID()
        await mkdir(partsDirectory(directory, key, reference), { recursive: true })
        return reference
      }),
    writePart: (key, reference, number, length, body) =>
      Effect.gen(function* () {
        const path = join(partsDirectory(directory, key, reference), String(number))
        // The part is written aside and renamed into place only when whole, so an interrupted
        // or short body never replaces a good copy.
        const staged = `${path}.${randomUUID()}.staged`
        const received = yield* writeFileFromStream(staged, key, body)
        if (received !== length) {
          yield* attempt(key, () => rm(staged, { force: true }))
          return yield* new PartLengthMismatch({ expected: length, received })
        }
        yield* attempt(key, () => rename(staged, path))
        return { number, tag: String(length) }
      }),
    joinParts: (key, reference, parts) =>
      Effect.gen(function* () {
        const folder = partsDirectory(directory, key, reference)
        const ordered = [...parts].sort((a, b) => a.number - b.number)
        const joined = Stream.fromIterable(ordered).pipe(
          Stream.flatMap((part) => readFileStream(join(folder, String(part.number)), key), { concurrency: 1 })
        )
        const size = yield* writeFileFromStream(pathOf(directory, key), key, joined)
        yield* attempt(key, () => rm(join(directory, `${key}.parts`), { recursive: true, force: true }))
        return size
      }),
    abortParts: (key, reference) =>
      attempt(key, async () => {
        await rm(partsDirectory(directory, key, reference), { recursive: true, force: true })
        const rest = await readdir(join(directory, `${key}.parts`)).catch(() => [])
        if (rest.length === 0) await rm(join(directory, `${key}.parts`), { recursive: true, force: true })
      })
  }
}

/**
 * The files under `directory` as the `BlobStore` layer.
 *
 * @example
 * ```ts
 * const Media = FileBlobStore.layer("./.postwire/media")
 * ```
 */
export const layer = (directory: string): Layer.Layer<BlobStore> => Layer.succeed(BlobStore)(make(directory))
