import { createHash } from "node:crypto"
/**
 * The media storage conformance suite: what every `BlobStore` (the local directory, an
 * S3-compatible bucket, memory) must do, run on each of them.
 */
import { Context, Effect, Exit, Layer, Scope, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BlobStore, type BlobStoreShape } from "@postwire/core"

const MiB = 1024 * 1024

/** Deterministic bytes, different for each `seed`. */
const bytesOf = (length: number, seed: number): Uint8Array => {
  const out = new Uint8Array(length)
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 7) & 0xff
  return out
}

/** A stream of `bytes` in chunks of `chunk`. */
const streamOf = (bytes: Uint8Array, chunk = 256 * 1024) =>
  Stream.fromIterable(Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => bytes.subarray(i * chunk, (i + 1) * chunk)))

const collect = (stream: Stream.Stream<Uint8Array, unknown>) =>
  Effect.runPromise(
    Stream.runFold(
      stream,
      () => [] as Array<Uint8Array>,
      (all, chunk) => {
        all.push(chunk)
        return all
      }
    )
  ).then((chunks) => Buffer.concat(chunks))

/** A digest to compare bytes by: comparing megabytes element by element is slow. */
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/**
 * Runs the suite on the storage `layer` builds. `minPartBytes` is the smallest part the storage
 * takes but the last (5 MiB for S3).
 */
export const blobStoreConformance = (
  name: string,
  layer: () => Promise<Layer.Layer<BlobStore>> | Layer.Layer<BlobStore>,
  options: { readonly minPartBytes?: number } = {}
) =>
  describe(`BlobStore: ${name}`, () => {
    let blobs: BlobStoreShape
    let scope: Scope.Closeable
    let n = 0
    const aKey = () => `ws_test/med_${Date.now()}_${n++}`
    const partBytes = options.minPartBytes ?? MiB

    beforeAll(async () => {
      scope = Effect.runSync(Scope.make())
      const context = await Effect.runPromise(Layer.buildWithScope(await layer(), scope))
      blobs = Context.get(context, BlobStore)
    })
    afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

    it("keeps small bytes under a key and answers their size and ranges", async () => {
      const key = aKey()
      const bytes = bytesOf(70_000, 1)
      await run(blobs.put(key, bytes))
      expect(digest(Buffer.from(await run(blobs.get(key))))).toBe(digest(bytes))
      expect(await run(blobs.size(key))).toBe(70_000)
      expect(digest(Buffer.from(await run(blobs.readRange(key, 1000, 24))))).toBe(digest(bytes.subarray(1000, 1024)))
      expect((await run(blobs.readRange(key, 69_990, 100))).length).toBe(10)
      expect(digest(await collect(blobs.read(key, { start: 10, end: 19 })))).toBe(digest(bytes.subarray(10, 20)))
    })

    it("writes a stream chunk by chunk and reads it back as one", async () => {
      const key = aKey()
      const bytes = bytesOf(3 * MiB + 17, 2)
      expect(await run(blobs.write(key, streamOf(bytes)))).toBe(bytes.length)
      expect(digest(await collect(blobs.read(key)))).toBe(digest(bytes))
    })

    it("passes on the failure of a stream it was writing", async () => {
      const key = aKey()
      const failing = Stream.concat(streamOf(bytesOf(1000, 3)), Stream.fail("source broke" as const))
      const exit = await Effect.runPromiseExit(blobs.write(key, failing))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("source broke")
    })

    it("joins parts written in any order, a part sent again replacing the first copy", async () => {
      const key = aKey()
      const parts = [bytesOf(partBytes, 10), bytesOf(partBytes, 11), bytesOf(1234, 12)]
      const reference = await run(blobs.startParts(key))
      const stored = [
        await run(blobs.writePart(key, reference, 2, parts[2]!.length, streamOf(parts[2]!))),
        await run(blobs.writePart(key, reference, 0, partBytes, streamOf(bytesOf(partBytes, 99)))),
        await run(blobs.writePart(key, reference, 1, partBytes, streamOf(parts[1]!)))
      ]
      stored[1] = await run(blobs.writePart(key, reference, 0, partBytes, streamOf(parts[0]!)))
      expect(await run(blobs.joinParts(key, reference, stored))).toBe(2 * partBytes + 1234)
      expect(digest(await collect(blobs.read(key)))).toBe(digest(Buffer.concat(parts)))
    })

    it("refuses a part whose body is shorter or longer than announced, and takes it whole when sent again", async () => {
      const key = aKey()
      const part = bytesOf(partBytes, 20)
      const last = bytesOf(100, 21)
      const reference = await run(blobs.startParts(key))
      const short = await Effect.runPromiseExit(blobs.writePart(key, reference, 0, partBytes, streamOf(part.subarray(0, 1000))))
      expect(Exit.isFailure(short) && JSON.stringify(short.cause)).toContain("PartLengthMismatch")
      const first = await run(blobs.writePart(key, reference, 0, partBytes, streamOf(part)))
      const long = await Effect.runPromiseExit(blobs.writePart(key, reference, 1, 50, streamOf(last)))
      expect(Exit.isFailure(long) && JSON.stringify(long.cause)).toContain("PartLengthMismatch")
      const second = await run(blobs.writePart(key, reference, 1, 100, streamOf(last)))
      await run(blobs.joinParts(key, reference, [first, second]))
      expect(digest(await collect(blobs.read(key)))).toBe(digest(Buffer.concat([part, last])))
    })

    it("forgets abandoned parts and removed keys; removing twice is no error", async () => {
      const key = aKey()
      const reference = await run(blobs.startParts(key))
      await run(blobs.writePart(key, reference, 0, 100, streamOf(bytesOf(100, 30))))
      await run(blobs.abortParts(key, reference))
      await run(blobs.put(key, bytesOf(10, 31)))
      await run(blobs.remove(key))
      await run(blobs.remove(key))
      expect(Exit.isFailure(await Effect.runPromiseExit(blobs.get(key)))).toBe(true)
    })

    it("gives a signed address serving the bytes, when the storage signs addresses", async () => {
      const key = aKey()
      const bytes = bytesOf(5000, 40)
      await run(blobs.put(key, bytes))
      if (blobs.signedUrl === undefined) {
        // Storages without signed addresses are served by the server's own signed route.
        expect(name).not.toMatch(/S3/)
        return
      }
      const url = await run(blobs.signedUrl(key, "video/mp4", Date.now() + 60_000))
      const response = await fetch(url)
      expect(response.status).toBe(200)
      expect(digest(Buffer.from(await response.arrayBuffer()))).toBe(digest(bytes))
      expect(new URL(url).searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/)
      expect(Number(new URL(url).searchParams.get("X-Amz-Expires"))).toBeLessThanOrEqual(60)
    })
  })
