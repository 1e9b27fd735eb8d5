/**
 * Probing a stored file without reading it whole: the first megabyte says what it is (and holds
 * an image's header); for MP4 and QuickTime the top-level boxes are walked header by header
 * through ranged reads, and only `ftyp` and `moov` are read, however large `mdat` is. The
 * bytes read are then given to {@link sniffMedia}.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { BlobError, BlobStoreShape } from "./BlobStore.ts"
import { type SniffResult, sniffMedia } from "./MediaSniffer.ts"

const headBytes = 1024 * 1024
// A movie header larger than this is refused rather than read (real ones are kilobytes to a few MB).
const maxMovieHeaderBytes = 64 * 1024 * 1024
const maxTopLevelBoxes = 10_000

const u32 = (bytes: Uint8Array, at: number) =>
  bytes[at]! * 0x1000000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!)
const typeOf = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4))

const isIsoMedia = (head: Uint8Array) =>
  head.length >= 8 && ["ftyp", "moov", "mdat", "wide", "pnot", "free", "skip"].includes(typeOf(head, 4))

/**
 * Reads what a stored file is, from at most its first megabyte plus its movie header.
 *
 * @example
 * ```ts
 * const sniffed = yield* probeStoredMedia(blobs, media.blobKey, size)
 * ```
 */
export const probeStoredMedia = (
  blobs: BlobStoreShape,
  key: string,
  size: number
): Effect.Effect<SniffResult, BlobError> =>
  Effect.gen(function* () {
    const head = yield* blobs.readRange(key, 0, Math.min(size, headBytes))
    if (size <= headBytes || !isIsoMedia(head)) return sniffMedia(head)
    // Walk the top-level boxes; keep ftyp (needed to tell MP4 from MOV) and moov.
    const kept: Array<Uint8Array> = []
    let at = 0
    for (let count = 0; at + 8 <= size && count < maxTopLevelBoxes; count++) {
      const header = yield* blobs.readRange(key, at, 16)
      if (header.length < 8) break
      const size32 = u32(header, 0)
      const type = typeOf(header, 4)
      const boxSize =
        size32 === 1 ? (header.length < 16 ? 0 : u32(header, 8) * 0x100000000 + u32(header, 12)) : size32 === 0 ? size - at : size32
      if (boxSize < 8) break
      if (type === "ftyp" && at === 0 && boxSize <= 4096) kept.push(yield* blobs.readRange(key, at, boxSize))
      if (type === "moov") {
        if (boxSize > maxMovieHeaderBytes) break
        kept.push(yield* blobs.readRange(key, at, boxSize))
        break
      }
      at += boxSize
    }
    const ftypOnly = kept.length === 1 && typeOf(kept[0]!, 4) === "ftyp"
    if (kept.length === 0 || ftypOnly) return sniffMedia(head)
    const joined = new Uint8Array(kept.reduce((n, part) => n + part.length, 0))
    let offset = 0
    for (const part of kept) {
      joined.set(part, offset)
      offset += part.length
    }
    return sniffMedia(joined)
  })
