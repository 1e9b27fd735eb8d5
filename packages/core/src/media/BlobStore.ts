/**
 * The `BlobStore` service: where media bytes live. The server provides a local directory by
 * default (`FileBlobStore` in `@postwire/server`) or an S3-compatible bucket; the engine only
 * ever sees keys. Core itself keeps no Node I/O: only the interface, its errors and the
 * in-memory store live here.
 *
 * Large files never pass through memory whole: `write` and `writePart` consume a stream chunk
 * by chunk, `read` gives one, and `joinParts` assembles the parts of a resumable upload inside
 * the storage itself (a concatenation on disk, a multipart completion in a bucket).
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Layer, Stream } from "effect"

/** Reading or writing bytes failed. */
export class BlobError extends Data.TaggedError("BlobError")<{ readonly key: string; readonly cause: unknown }> {}

/** A stored part of a resumable upload, as `joinParts` needs it. */
export interface StoredPart {
  /** 0-based part number. */
  readonly number: number
  /** What the storage calls the part (a bucket's ETag); opaque. */
  readonly tag: string
}

/** The operations of a {@link BlobStore}. */
export interface BlobStoreShape {
  /** Stores small bytes (inline uploads) under `key`. */
  readonly put: (key: string, bytes: Uint8Array) => Effect.Effect<void, BlobError>
  /** The whole bytes under `key`; for small files only. */
  readonly get: (key: string) => Effect.Effect<Uint8Array, BlobError>
  /** Stores a stream under `key` chunk by chunk; answers how many bytes were written. */
  readonly write: <E>(key: string, body: Stream.Stream<Uint8Array, E>) => Effect.Effect<number, BlobError | E>
  /** The bytes under `key` as a stream, optionally only `start` to `end` (inclusive). */
  readonly read: (key: string, range?: { readonly start: number; readonly end: number }) => Stream.Stream<Uint8Array, BlobError>
  /** Up to `length` bytes from `start` (fewer at the end of the file). */
  readonly readRange: (key: string, start: number, length: number) => Effect.Effect<Uint8Array, BlobError>
  /** The size of the bytes under `key`. */
  readonly size: (key: string) => Effect.Effect<number, BlobError>
  /** Deletes `key`; a key that is not there is no error. */
  readonly remove: (key: string) => Effect.Effect<void, BlobError>
  /** Begins a multipart write of `key`; answers the reference its parts are written under. */
  readonly startParts: (key: string) => Effect.Effect<string, BlobError>
  /** Stores part `number` (0-based) of exactly `length` bytes; fails (storing nothing) when the body has another length. */
  readonly writePart: <E>(
    key: string,
    reference: string,
    number: number,
    length: number,
    body: Stream.Stream<Uint8Array, E>
  ) => Effect.Effect<StoredPart, BlobError | PartLengthMismatch | E>
  /** Joins the parts, in number order, into `key`, and forgets them; answers the size. */
  readonly joinParts: (key: string, reference: string, parts: ReadonlyArray<StoredPart>) => Effect.Effect<number, BlobError>
  /** Forgets the parts of an abandoned multipart write. */
  readonly abortParts: (key: string, reference: string) => Effect.Effect<void, BlobError>
  /**
   * A signed address where platforms fetch `key` directly from the storage until `expiresAt`
   * (Unix ms); `undefined` when the storage has none (the server then serves the bytes itself).
   */
  readonly signedUrl?: ((key: string, mime: string, expiresAt: number) => Effect.Effect<string, BlobError>) | undefined
}

/** A part's body was not the length its range announced. */
export class PartLengthMismatch extends Data.TaggedError("PartLengthMismatch")<{
  readonly expected: number
  readonly received: number
}> {}

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

const makeMemory = (): BlobStoreShape => {
  const blobs = new Map<string, Uint8Array>()
  const parts = new Map<string, Map<number, Uint8Array>>()
  const found = (key: string) => {
    const bytes = blobs.get(key)
    return bytes === undefined ? Effect.fail(new BlobError({ key, cause: "not found" })) : Effect.succeed(bytes)
  }
  const collect = <E>(body: Stream.Stream<Uint8Array, E>) =>
    Stream.runFold(
      body,
      () => [] as Array<Uint8Array>,
      (chunks, chunk) => {
        chunks.push(chunk)
        return chunks
      }
    ).pipe(Effect.map(concat))
  return {
    put: (key, bytes) => Effect.sync(() => void blobs.set(key, bytes)),
    get: found,
    write: (key, body) =>
      collect(body).pipe(
        Effect.map((bytes) => {
          blobs.set(key, bytes)
          return bytes.length
        })
      ),
    read: (key, range) =>
      Stream.fromEffect(found(key)).pipe(
        Stream.map((bytes) => (range === undefined ? bytes : bytes.subarray(range.start, range.end + 1)))
      ),
    readRange: (key, start, length) => Effect.map(found(key), (bytes) => bytes.subarray(start, start + length)),
    size: (key) => Effect.map(found(key), (bytes) => bytes.length),
    remove: (key) =>
      Effect.sync(() => {
        blobs.delete(key)
        for (const reference of parts.keys()) if (reference.startsWith(`${key}\u0000`)) parts.delete(reference)
      }),
    startParts: (key) =>
      Effect.sync(() => {
        const reference = globalThis.crypto.randomUUID()
        parts.set(`${key}\u0000${reference}`, new Map())
        return reference
      }),
    writePart: (key, reference, number, length, body) =>
      Effect.gen(function* () {
        const bytes = yield* collect(body)
        if (bytes.length !== length) return yield* new PartLengthMismatch({ expected: length, received: bytes.length })
        const stored = parts.get(`${key}\u0000${reference}`)
        if (stored === undefined) return yield* new BlobError({ key, cause: "unknown upload" })
        stored.set(number, bytes)
        return { number, tag: String(length) }
      }),
    joinParts: (key, reference, list) =>
      Effect.gen(function* () {
        const stored = parts.get(`${key}\u0000${reference}`)
        if (stored === undefined) return yield* new BlobError({ key, cause: "unknown upload" })
        const ordered = [...list].sort((a, b) => a.number - b.number).map((part) => stored.get(part.number) ?? new Uint8Array())
        const bytes = concat(ordered)
        blobs.set(key, bytes)
        parts.delete(`${key}\u0000${reference}`)
        return bytes.length
      }),
    abortParts: (key, reference) => Effect.sync(() => void parts.delete(`${key}\u0000${reference}`))
  }
}

/** Stores and reads media bytes by key. */
export class BlobStore extends Context.Service<BlobStore, BlobStoreShape>()("postwire/BlobStore") {
  /** Bytes in memory, for tests and the embedded engine without a data directory. */
  static readonly layerMemory: Layer.Layer<BlobStore> = Layer.sync(BlobStore)(makeMemory)
}
