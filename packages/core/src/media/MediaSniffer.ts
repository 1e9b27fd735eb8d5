/**
 * Media type detection from the bytes of an upload; the client's file name and MIME type are
 * never consulted. Accepted: JPEG, PNG, WebP images; MP4 and QuickTime (MOV) videos.
 *
 * Only headers are read: image dimensions come from the first frame header, video duration
 * and dimensions from the ISO-BMFF `moov` box, found by hopping from box header to box header
 * (an `mdat` payload is skipped by its size, never scanned). Any input, however truncated or
 * corrupt, yields a result; nothing throws.
 *
 * @since 0.1.0
 */

/**
 * An accepted image, with its pixel dimensions (always read from the header).
 *
 * @since 0.1.0
 */
export interface SniffedImage {
  readonly _tag: "Image"
  readonly mime: "image/jpeg" | "image/png" | "image/webp"
  readonly width: number
  readonly height: number
}

/**
 * An accepted video: a container with a movie header (`moov`) holding a video track with
 * samples (a non-empty `stsz`/`stz2`, or fragments declared by `mvex`); a container without one
 * (a bare header, an upload cut off before a trailing `moov`, audio only) is unsupported.
 * `durationSeconds` comes from `moov/mvhd` (or `mvex/mehd` for fragmented files), `undefined`
 * when neither says. `width` and `height` are the display size of the video track (its `tkhd`
 * size, swapped when the track matrix rotates by 90° or 270°); absent when its header gives
 * none. `codec` is the four-character type of the video track's
 * first sample description (`moov/trak/mdia/minf/stbl/stsd`); when `mvhd` carries no duration,
 * the video track's `mdhd` gives it.
 *
 * @since 0.1.0
 */
export interface SniffedVideo {
  readonly _tag: "Video"
  readonly mime: "video/mp4" | "video/quicktime"
  readonly durationSeconds: number | undefined
  readonly width?: number
  readonly height?: number
  /** The video track's codec, the type of its first `stsd` sample entry (`avc1`, `hvc1`, `av01`, …). */
  readonly codec?: string
}

/**
 * Bytes that are not an accepted format, with a short reason for logs (`"GIF is not an
 * accepted format"`, `"truncated PNG header"`, `"unrecognized format"`).
 *
 * @since 0.1.0
 */
export interface UnsupportedMedia {
  readonly _tag: "Unsupported"
  readonly reason: string
}

/**
 * The outcome of {@link sniffMedia}.
 *
 * @since 0.1.0
 */
export type SniffResult = SniffedImage | SniffedVideo | UnsupportedMedia

// ---------------------------------------------------------------------------------------------
// Byte reading (callers check bounds first)
// ---------------------------------------------------------------------------------------------

const u16be = (bytes: Uint8Array, at: number): number => (bytes[at]! << 8) | bytes[at + 1]!
const u16le = (bytes: Uint8Array, at: number): number => bytes[at]! | (bytes[at + 1]! << 8)
const u24le = (bytes: Uint8Array, at: number): number => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)
const u32be = (bytes: Uint8Array, at: number): number =>
  bytes[at]! * 0x1000000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!)
const u32le = (bytes: Uint8Array, at: number): number => u24le(bytes, at) + bytes[at + 3]! * 0x1000000
const i32be = (bytes: Uint8Array, at: number): number => u32be(bytes, at) | 0
const ascii = (bytes: Uint8Array, at: number, length: number): string =>
  String.fromCharCode(...bytes.subarray(at, at + length))

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte)

const startsWithText = (bytes: Uint8Array, text: string, at = 0): boolean =>
  startsWith(
    bytes,
    Array.from(text, (char) => char.charCodeAt(0)),
    at
  )

const unsupported = (reason: string): UnsupportedMedia => ({ _tag: "Unsupported", reason })

const image = (mime: SniffedImage["mime"], width: number, height: number): SniffResult =>
  width > 0 && height > 0 ? { _tag: "Image", mime, width, height } : unsupported(`${mime} header with a zero dimension`)

// ---------------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------------

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

// The first chunk of every PNG is IHDR: length 13, then width and height.
const sniffPng = (bytes: Uint8Array): SniffResult => {
  if (bytes.length < 24) return unsupported("truncated PNG header")
  if (u32be(bytes, 8) !== 13 || !startsWithText(bytes, "IHDR", 12)) return unsupported("PNG without an IHDR chunk")
  return image("image/png", u32be(bytes, 16), u32be(bytes, 20))
}

// SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but don't.
const isStartOfFrame = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

// Walks marker segments by their lengths until the frame header; EXIF and ICC segments before
// it are skipped, not scanned.
const sniffJpeg = (bytes: Uint8Array): SniffResult => {
  let at = 2
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) return unsupported("corrupt JPEG marker")
    let marker = bytes[at + 1]!
    while (marker === 0xff && at + 2 < bytes.length) marker = bytes[++at + 1]!
    at += 2
    if (marker === 0xff) break
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue
    if (marker === 0xd9 || marker === 0xda) return unsupported("JPEG without a frame header")
    if (at + 2 > bytes.length) break
    const length = u16be(bytes, at)
    if (length < 2) return unsupported("corrupt JPEG segment length")
    if (isStartOfFrame(marker)) {
      if (at + 7 > bytes.length) break
      return image("image/jpeg", u16be(bytes, at + 5), u16be(bytes, at + 3))
    }
    at += length
  }
  return unsupported("truncated JPEG header")
}

// RIFF....WEBP, then the first chunk: VP8 (lossy), VP8L (lossless) or VP8X (extended).
const sniffWebp = (bytes: Uint8Array): SniffResult => {
  if (bytes.length < 20) return unsupported("truncated WebP header")
  const chunk = ascii(bytes, 12, 4)
  if (chunk === "VP8 ") {
    if (bytes.length < 30) return unsupported("truncated WebP header")
    if ((bytes[20]! & 1) !== 0 || !startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) {
      return unsupported("WebP VP8 stream without a key frame")
    }
    return image("image/webp", u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff)
  }
  if (chunk === "VP8L") {
    if (bytes.length < 25) return unsupported("truncated WebP header")
    if (bytes[20] !== 0x2f) return unsupported("WebP VP8L stream without its signature")
    const bits = u32le(bytes, 21)
    return image("image/webp", (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1)
  }
  if (chunk === "VP8X") {
    if (bytes.length < 30) return unsupported("truncated WebP header")
    return image("image/webp", u24le(bytes, 24) + 1, u24le(bytes, 27) + 1)
  }
  return unsupported("WebP with an unknown first chunk")
}

// ---------------------------------------------------------------------------------------------
// ISO base media (MP4, QuickTime)
// ---------------------------------------------------------------------------------------------

interface Box {
  readonly type: string
  // First byte of the payload.
  readonly body: number
  // End of the box, clipped to the parent (a truncated box ends where the data ends).
  readonly end: number
}

// The boxes between `start` and `end`, header to header. Stops at the first box that is
// malformed or runs past `end` (after yielding it, clipped, so a cut-off `moov` still gives
// what it holds).
function* boxesIn(bytes: Uint8Array, start: number, end: number): Generator<Box> {
  let at = start
  while (at + 8 <= end) {
    const size32 = u32be(bytes, at)
    const type = ascii(bytes, at + 4, 4)
    let header = 8
    let size: number
    if (size32 === 1) {
      if (at + 16 > end) return
      const high = u32be(bytes, at + 8)
      if (high >= 0x200000) return
      size = high * 0x100000000 + u32be(bytes, at + 12)
      header = 16
    } else {
      size = size32 === 0 ? end - at : size32
    }
    if (size < header) return
    yield { type, body: at + header, end: Math.min(at + size, end) }
    at += size
  }
}

const child = (bytes: Uint8Array, parent: Box, type: string): Box | undefined => {
  for (const box of boxesIn(bytes, parent.body, parent.end)) if (box.type === type) return box
  return undefined
}

// A full box's 32-bit or 64-bit field; all ones means "unknown".
const readDuration = (bytes: Uint8Array, at: number, wide: boolean): number | undefined => {
  if (!wide) {
    const value = u32be(bytes, at)
    return value === 0xffffffff ? undefined : value
  }
  const high = u32be(bytes, at)
  const low = u32be(bytes, at + 4)
  return high === 0xffffffff && low === 0xffffffff ? undefined : high * 0x100000000 + low
}

interface MovieHeader {
  readonly timescale: number
  readonly duration: number | undefined
}

const readMovieHeader = (bytes: Uint8Array, mvhd: Box): MovieHeader | undefined => {
  const version = bytes[mvhd.body]
  if (version === 0 && mvhd.body + 20 <= mvhd.end) {
    return { timescale: u32be(bytes, mvhd.body + 12), duration: readDuration(bytes, mvhd.body + 16, false) }
  }
  if (version === 1 && mvhd.body + 32 <= mvhd.end) {
    return { timescale: u32be(bytes, mvhd.body + 20), duration: readDuration(bytes, mvhd.body + 24, true) }
  }
  return undefined
}

// Fragmented files carry the total duration in moov/mvex/mehd, mvhd's being zero.
const readFragmentDuration = (bytes: Uint8Array, moov: Box): number | undefined => {
  const mvex = child(bytes, moov, "mvex")
  const mehd = mvex && child(bytes, mvex, "mehd")
  if (mehd === undefined) return undefined
  const version = bytes[mehd.body]
  if (version === 0 && mehd.body + 8 <= mehd.end) return readDuration(bytes, mehd.body + 4, false)
  if (version === 1 && mehd.body + 12 <= mehd.end) return readDuration(bytes, mehd.body + 4, true)
  return undefined
}

interface Dimensions {
  readonly width: number
  readonly height: number
}

// tkhd: width and height are 16.16 fixed point after the 3×3 matrix; a matrix with a zero
// diagonal turns the picture by 90° or 270°, so the displayed size is swapped.
const readTrackDimensions = (bytes: Uint8Array, tkhd: Box): Dimensions | undefined => {
  const version = bytes[tkhd.body]
  const matrix = version === 0 ? tkhd.body + 40 : version === 1 ? tkhd.body + 52 : undefined
  if (matrix === undefined || matrix + 44 > tkhd.end) return undefined
  const width = Math.round(u32be(bytes, matrix + 36) / 0x10000)
  const height = Math.round(u32be(bytes, matrix + 40) / 0x10000)
  if (width === 0 || height === 0) return undefined
  const quarterTurn =
    i32be(bytes, matrix) === 0 &&
    i32be(bytes, matrix + 16) === 0 &&
    i32be(bytes, matrix + 4) !== 0 &&
    i32be(bytes, matrix + 12) !== 0
  return quarterTurn ? { width: height, height: width } : { width, height }
}

const readHandler = (bytes: Uint8Array, trak: Box): string | undefined => {
  const mdia = child(bytes, trak, "mdia")
  const hdlr = mdia && child(bytes, mdia, "hdlr")
  return hdlr && hdlr.body + 12 <= hdlr.end ? ascii(bytes, hdlr.body + 8, 4) : undefined
}

interface VideoTrack {
  /** Whether the track holds samples: a non-empty `stsz` / `stz2`, or fragments (`mvex`) that hold them. */
  readonly hasSamples: boolean
  readonly width?: number
  readonly height?: number
  readonly codec?: string
  readonly durationSeconds?: number
}

// stsd is a full box: version and flags, an entry count, then sample entries (size, type, …).
const readCodec = (bytes: Uint8Array, trak: Box): string | undefined => {
  let box: Box | undefined = trak
  for (const type of ["mdia", "minf", "stbl", "stsd"]) {
    box = box && child(bytes, box, type)
  }
  if (box === undefined || box.body + 16 > box.end || u32be(bytes, box.body + 4) === 0) return undefined
  const codec = ascii(bytes, box.body + 12, 4)
  return /^[\x20-\x7e]{4}$/.test(codec) ? codec.trimEnd() : undefined
}

// mdhd: the track's own timescale and duration, for files whose mvhd says nothing.
const readMediaDuration = (bytes: Uint8Array, trak: Box): number | undefined => {
  const mdia = child(bytes, trak, "mdia")
  const mdhd = mdia && child(bytes, mdia, "mdhd")
  const header = mdhd && readMovieHeader(bytes, mdhd)
  return header && header.timescale > 0 && header.duration ? header.duration / header.timescale : undefined
}

// stsz and stz2 are full boxes whose sample count follows one 32-bit field.
const readSampleCount = (bytes: Uint8Array, trak: Box): number => {
  let stbl: Box | undefined = trak
  for (const type of ["mdia", "minf", "stbl"]) stbl = stbl && child(bytes, stbl, type)
  const sizes = stbl && (child(bytes, stbl, "stsz") ?? child(bytes, stbl, "stz2"))
  return sizes !== undefined && sizes.body + 12 <= sizes.end ? u32be(bytes, sizes.body + 8) : 0
}

// The first track whose handler is `vide`; a track without a handler counts when it has a
// picture size (audio tracks have none). A fragmented file's samples are in its fragments.
const readVideoTrack = (bytes: Uint8Array, moov: Box): VideoTrack | undefined => {
  const fragmented = child(bytes, moov, "mvex") !== undefined
  for (const trak of boxesIn(bytes, moov.body, moov.end)) {
    if (trak.type !== "trak") continue
    const handler = readHandler(bytes, trak)
    if (handler !== undefined && handler !== "vide") continue
    const tkhd = child(bytes, trak, "tkhd")
    const dimensions = tkhd && readTrackDimensions(bytes, tkhd)
    if (dimensions === undefined && handler === undefined) continue
    const codec = readCodec(bytes, trak)
    const durationSeconds = readMediaDuration(bytes, trak)
    return {
      hasSamples: fragmented || readSampleCount(bytes, trak) > 0,
      ...dimensions,
      ...(codec === undefined ? {} : { codec }),
      ...(durationSeconds === undefined ? {} : { durationSeconds })
    }
  }
  return undefined
}

const readMovie = (bytes: Uint8Array, mime: SniffedVideo["mime"]): SniffedVideo | UnsupportedMedia => {
  for (const box of boxesIn(bytes, 0, bytes.length)) {
    if (box.type !== "moov") continue
    const mvhd = child(bytes, box, "mvhd")
    const header = mvhd && readMovieHeader(bytes, mvhd)
    const units = header?.duration || readFragmentDuration(bytes, box)
    const video = readVideoTrack(bytes, box)
    // A container is a video only when it holds one: a header with no track or no samples is not.
    if (video === undefined) return unsupported("the movie has no video track")
    const { durationSeconds: trackSeconds, hasSamples, ...track } = video
    if (!hasSamples) return unsupported("the video track has no samples")
    const durationSeconds = header && header.timescale > 0 && units ? units / header.timescale : trackSeconds
    return { _tag: "Video", mime, durationSeconds, ...track }
  }
  return unsupported("the movie has no movie header (moov)")
}

const mp4Brands = new Set([
  "isom",
  "iso2",
  "iso3",
  "iso4",
  "iso5",
  "iso6",
  "iso7",
  "iso8",
  "iso9",
  "mp41",
  "mp42",
  "mp71",
  "avc1",
  "M4V ",
  "M4VH",
  "M4VP",
  "dash",
  "mmp4",
  "MSNV",
  "XAVC",
  "f4v "
])
const heifBrands = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1", "miaf", "avif", "avis"])
const audioBrands = new Set(["M4A ", "M4B ", "M4P ", "F4A ", "F4B "])

// Decides by the major brand, then by the compatible brands when the major one is unknown.
const videoMimeOfBrands = (major: string, compatible: ReadonlyArray<string>): SniffedVideo["mime"] | UnsupportedMedia => {
  if (major === "qt  ") return "video/quicktime"
  if (heifBrands.has(major)) return unsupported("HEIF/AVIF is not an accepted format")
  if (audioBrands.has(major)) return unsupported("audio-only MP4 is not an accepted format")
  if (major.startsWith("3gp") || major.startsWith("3g2")) return unsupported("3GPP is not an accepted format")
  if (mp4Brands.has(major)) return "video/mp4"
  if (compatible.some((brand) => heifBrands.has(brand))) return unsupported("HEIF/AVIF is not an accepted format")
  if (compatible.includes("qt  ")) return "video/quicktime"
  if (compatible.some((brand) => mp4Brands.has(brand))) return "video/mp4"
  return unsupported(`unrecognized ISO media brand ${JSON.stringify(major)}`)
}

const sniffFtyp = (bytes: Uint8Array): SniffResult => {
  const size = u32be(bytes, 0)
  if (size < 16 || size > bytes.length) return unsupported("truncated ftyp box")
  const compatible: Array<string> = []
  for (let at = 16; at + 4 <= size; at += 4) compatible.push(ascii(bytes, at, 4))
  const mime = videoMimeOfBrands(ascii(bytes, 8, 4), compatible)
  return typeof mime === "string" ? readMovie(bytes, mime) : mime
}

// Classic QuickTime files have no ftyp and start straight with one of these atoms.
const quickTimeFirstAtoms = new Set(["moov", "mdat", "wide", "pnot"])

const startsWithQuickTimeAtom = (bytes: Uint8Array): boolean => {
  if (bytes.length < 8 || !quickTimeFirstAtoms.has(ascii(bytes, 4, 4))) return false
  const size = u32be(bytes, 0)
  return size === 0 || size === 1 || size >= 8
}

// ---------------------------------------------------------------------------------------------
// Formats we recognize only to name them in the reason
// ---------------------------------------------------------------------------------------------

const namedUnsupported: ReadonlyArray<readonly [ReadonlyArray<number> | string, string]> = [
  ["GIF87a", "GIF"],
  ["GIF89a", "GIF"],
  ["%PDF-", "PDF"],
  [[0x49, 0x49, 0x2a, 0x00], "TIFF"],
  [[0x4d, 0x4d, 0x00, 0x2a], "TIFF"],
  [[0x1a, 0x45, 0xdf, 0xa3], "WebM/Matroska"],
  ["OggS", "Ogg"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP"]
]

const riffNames: Record<string, string> = { "AVI ": "AVI", WAVE: "WAV" }

const nameOf = (bytes: Uint8Array): string | undefined => {
  for (const [signature, name] of namedUnsupported) {
    if (typeof signature === "string" ? startsWithText(bytes, signature) : startsWith(bytes, signature)) return name
  }
  if (startsWithText(bytes, "RIFF")) return riffNames[ascii(bytes, 8, 4)] ?? "RIFF"
  return undefined
}

/**
 * Detects the format of uploaded bytes and reads image dimensions or video duration and size
 * from the headers. Pure and synchronous; never throws.
 *
 * @example
 * ```ts
 * const sniffed = sniffMedia(bytes)
 * if (sniffed._tag === "Unsupported") return yield* new UnsupportedFormat({ reason: sniffed.reason })
 * ```
 *
 * @since 0.1.0
 */
export const sniffMedia = (bytes: Uint8Array): SniffResult => {
  if (bytes.length === 0) return unsupported("empty input")
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return sniffJpeg(bytes)
  if (startsWith(bytes, pngSignature)) return sniffPng(bytes)
  if (startsWithText(bytes, "RIFF") && startsWithText(bytes, "WEBP", 8)) return sniffWebp(bytes)
  if (startsWithText(bytes, "ftyp", 4)) return sniffFtyp(bytes)
  if (startsWithQuickTimeAtom(bytes)) return readMovie(bytes, "video/quicktime")
  const name = nameOf(bytes)
  return unsupported(name === undefined ? "unrecognized format" : `${name} is not an accepted format`)
}
