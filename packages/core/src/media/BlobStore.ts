/**
 * The `BlobStore` service: where media bytes live. A local directory by default; the engine
 * only ever sees keys.
 *
 * @since 0.1.0
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Context, Data, Effect, Layer } from "effect"

/** Reading or writing bytes failed. */
export class BlobError extends Data.TaggedError("BlobError")<{ readonly key: string; readonly cause: unknown }> {}

/** Stores and reads media bytes by key. */
export class BlobStore extends Context.Service<
  BlobStore,
  {
    readonly put: (key: string, bytes: Uint8Array) => Effect.Effect<void, BlobError>
    readonly get: (key: string) => Effect.Effect<Uint8Array, BlobError>
  }
>()("postwire/BlobStore") {
  /** Bytes as files under `directory`, written atomically (temporary file, then rename). */
  static readonly layerDirectory = (directory: string): Layer.Layer<BlobStore> =>
    Layer.succeed(BlobStore)({
      put: (key, bytes) =>
        Effect.tryPromise({
          try: async () => {
            const path = join(directory, key)
            await mkdir(dirname(path), { recursive: true })
            const temporary = `${path}.${process.pid}.tmp`
            await writeFile(temporary, bytes)
            await rename(temporary, path)
          },
          catch: (cause) => new BlobError({ key, cause })
        }),
      get: (key) =>
        Effect.tryPromise({
          try: async () => new Uint8Array(await readFile(join(directory, key))),
          catch: (cause) => new BlobError({ key, cause })
        })
    })

  /** Bytes in memory, for tests and the embedded engine without a data directory. */
  static readonly layerMemory: Layer.Layer<BlobStore> = Layer.sync(BlobStore)(() => {
    const blobs = new Map<string, Uint8Array>()
    return {
      put: (key, bytes) => Effect.sync(() => void blobs.set(key, bytes)),
      get: (key) => {
        const found = blobs.get(key)
        return found === undefined ? Effect.fail(new BlobError({ key, cause: "not found" })) : Effect.succeed(found)
      }
    }
  })
}
