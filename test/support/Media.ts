/**
 * Builders for real media bytes in tests: structurally valid files made in memory, small
 * whatever their declared size.
 *
 * - `aPng`, `aJpeg`, `aWebp` (lossless and extended) and `aGif` decode in ordinary image tools
 *   (a black, grey or transparent picture of the requested size).
 * - `aWebp({ encoding: "lossy" })` has a real VP8 frame header but no picture data.
 * - `anMp4` and `aMov` are valid ISO base media containers (ftyp, moov with mvhd and tracks,
 *   mdat) with an empty media payload: enough for anything that reads the container, not for
 *   a player.
 */

// ---------------------------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------------------------

const concat = (...parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0))

const u8 = (...values: ReadonlyArray<number>): Uint8Array => Uint8Array.from(values)

const u16be = (value: number): Uint8Array => u8((value >>> 8) & 0xff, value & 0xff)

const u16le = (value: number): Uint8Array => u8(value & 0xff, (value >>> 8) & 0xff)

const u24le = (value: number): Uint8Array => u8(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff)

const u32be = (value: number): Uint8Array =>
  u8((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff)

const u32le = (value: number): Uint8Array =>
  u8(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff)

const u64be = (value: number): Uint8Array => concat(u32be(Math.floor(value / 0x100000000)), u32be(value % 0x100000000))

const zeros = (length: number): Uint8Array => new Uint8Array(length)

const requireDimension = (name: string, value: number, max: number): number => {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`${name} must be an integer from 1 to ${max}, got ${value}`)
  }
  return value
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (ISO-HDLC, as in PNG and zlib) of `bytes`. */
export const crc32 = (bytes: Uint8Array): number => {
  let crc = 0xffffffff
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

const adler32 = (bytes: Uint8Array): number => {
  let a = 1
  let b = 0
  for (const byte of bytes) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  return (b * 65536 + a) >>> 0
}

// zlib stream of uncompressed ("stored") deflate blocks.
const zlibStored = (data: Uint8Array): Uint8Array => {
  const blocks: Array<Uint8Array> = [u8(0x78, 0x01)]
  let at = 0
  do {
    const length = Math.min(0xffff, data.length - at)
    const final = at + length === data.length ? 1 : 0
    blocks.push(u8(final), u16le(length), u16le(~length & 0xffff), data.subarray(at, at + length))
    at += length
  } while (at < data.length)
  blocks.push(u32be(adler32(data)))
  return concat(...blocks)
}

// ---------------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------------

/** Size of a test image. */
export interface ImageOptions {
  readonly width?: number
  readonly height?: number
}

const pngChunk = (type: string, data: Uint8Array): Uint8Array => {
  const typed = concat(ascii(type), data)
  return concat(u32be(data.length), typed, u32be(crc32(typed)))
}

/**
 * A black PNG (1-bit greyscale) of the given size, default 320×240, with correct CRCs and a
 * valid zlib stream. About `height × (width / 8)` bytes.
 *
 * @example
 * ```ts
 * const bytes = aPng({ width: 1080, height: 1350 })
 * ```
 */
export const aPng = (options: ImageOptions = {}): Uint8Array => {
  const width = requireDimension("width", options.width ?? 320, 0x7fffffff)
  const height = requireDimension("height", options.height ?? 240, 0x7fffffff)
  const rowBytes = 1 + Math.ceil(width / 8)
  const ihdr = concat(u32be(width), u32be(height), u8(1, 0, 0, 0, 0))
  return concat(
    u8(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlibStored(zeros(rowBytes * height))),
    pngChunk("IEND", zeros(0))
  )
}

/** Options of {@link aJpeg}: size, and an EXIF segment before the frame header. */
export interface JpegOptions extends ImageOptions {
  /** Payload bytes of an APP1 "Exif" segment placed before the frame header (as phones do). */
  readonly exifBytes?: number
}

const jpegSegment = (marker: number, payload: Uint8Array): Uint8Array =>
  concat(u8(0xff, marker), u16be(payload.length + 2), payload)

/**
 * A mid-grey baseline JPEG (SOI, APP0 JFIF, optional APP1 Exif, DQT, SOF0, DHT, SOS, EOI) of
 * the given size, default 320×240. Every 8×8 block is coded as "no change", so the file stays
 * small at any size.
 *
 * @example
 * ```ts
 * const bytes = aJpeg({ width: 4032, height: 3024, exifBytes: 12_000 })
 * ```
 */
export const aJpeg = (options: JpegOptions = {}): Uint8Array => {
  const width = requireDimension("width", options.width ?? 320, 0xffff)
  const height = requireDimension("height", options.height ?? 240, 0xffff)
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8)
  // One-symbol Huffman tables: DC difference 0 and AC end-of-block are each the 1-bit code 0,
  // so a block is two zero bits; the final byte is padded with ones.
  const scanBits = blocks * 2
  const scan = zeros(Math.ceil(scanBits / 8))
  if (scanBits % 8 !== 0) scan[scan.length - 1] = 0xff >>> (scanBits % 8)
  const oneSymbolTable = (tableClass: number): Uint8Array =>
    concat(u8(tableClass << 4), u8(1), zeros(15), u8(0))
  const exif =
    options.exifBytes === undefined
      ? zeros(0)
      : jpegSegment(0xe1, concat(ascii("Exif\0\0"), zeros(requireDimension("exifBytes", options.exifBytes, 65_527))))
  return concat(
    u8(0xff, 0xd8),
    jpegSegment(0xe0, concat(ascii("JFIF\0"), u8(1, 1, 0), u16be(1), u16be(1), u8(0, 0))),
    exif,
    jpegSegment(0xdb, concat(u8(0), new Uint8Array(64).fill(1))),
    jpegSegment(0xc0, concat(u8(8), u16be(height), u16be(width), u8(1, 1, 0x11, 0))),
    jpegSegment(0xc4, oneSymbolTable(0)),
    jpegSegment(0xc4, oneSymbolTable(1)),
    jpegSegment(0xda, u8(1, 1, 0x00, 0, 63, 0)),
    scan,
    u8(0xff, 0xd9)
  )
}

/** Options of {@link aWebp}: size and which of the three WebP layouts to write. */
export interface WebpOptions extends ImageOptions {
  /**
   * `lossless` (default): a VP8L image; `extended`: a VP8X header followed by that VP8L image;
   * `lossy`: a VP8 key-frame header without picture data.
   */
  readonly encoding?: "lossless" | "extended" | "lossy"
}

// Bits written least significant first, as VP8L reads them.
const lsbFirst = (fields: ReadonlyArray<readonly [value: number, bits: number]>): Uint8Array => {
  const total = fields.reduce((sum, [, bits]) => sum + bits, 0)
  const out = zeros(Math.ceil(total / 8))
  let position = 0
  for (const [value, bits] of fields) {
    for (let bit = 0; bit < bits; bit++, position++) {
      if ((value >>> bit) & 1) out[position >> 3]! |= 1 << (position & 7)
    }
  }
  return out
}

// A transparent VP8L image: no transforms, no colour cache, and five one-symbol prefix codes
// (green, red, blue, alpha, distance), so every pixel takes zero bits.
const vp8l = (width: number, height: number): Uint8Array => {
  const oneSymbolCode = [
    [1, 1],
    [0, 1],
    [0, 1],
    [0, 1]
  ] as const
  return concat(
    u8(0x2f),
    lsbFirst([
      [width - 1, 14],
      [height - 1, 14],
      [1, 1],
      [0, 3],
      [0, 1],
      [0, 1],
      [0, 1],
      ...oneSymbolCode,
      ...oneSymbolCode,
      ...oneSymbolCode,
      ...oneSymbolCode,
      ...oneSymbolCode
    ])
  )
}

const riffChunk = (type: string, data: Uint8Array): Uint8Array =>
  concat(ascii(type), u32le(data.length), data, data.length % 2 === 1 ? zeros(1) : zeros(0))

/**
 * A WebP image of the given size, default 320×240 (at most 16384×16384).
 *
 * @example
 * ```ts
 * const bytes = aWebp({ width: 1080, height: 1080, encoding: "extended" })
 * ```
 */
export const aWebp = (options: WebpOptions = {}): Uint8Array => {
  const width = requireDimension("width", options.width ?? 320, 16_384)
  const height = requireDimension("height", options.height ?? 240, 16_384)
  const encoding = options.encoding ?? "lossless"
  const chunks =
    encoding === "lossless"
      ? riffChunk("VP8L", vp8l(width, height))
      : encoding === "extended"
        ? concat(
            riffChunk("VP8X", concat(u8(0x10, 0, 0, 0), u24le(width - 1), u24le(height - 1))),
            riffChunk("VP8L", vp8l(width, height))
          )
        : riffChunk(
            "VP8 ",
            // Frame tag: key frame, version 0, shown, first partition of 10 bytes.
            concat(u24le((10 << 5) | 0x10), u8(0x9d, 0x01, 0x2a), u16le(width), u16le(height), zeros(10))
          )
  return concat(ascii("RIFF"), u32le(4 + chunks.length), ascii("WEBP"), chunks)
}

/** A 1×1 GIF89a: a real image in a format that is not accepted. */
export const aGif = (): Uint8Array =>
  concat(
    ascii("GIF89a"),
    u16le(1),
    u16le(1),
    u8(0x80, 0, 0),
    u8(0, 0, 0, 0xff, 0xff, 0xff),
    u8(0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0),
    u8(0x02, 0x02, 0x44, 0x01, 0x00),
    u8(0x3b)
  )

// ---------------------------------------------------------------------------------------------
// ISO base media (MP4, QuickTime)
// ---------------------------------------------------------------------------------------------

/** Options of {@link anMp4} and {@link aMov}. */
export interface VideoOptions {
  /** Written to `mvhd` (and each track) as `round(durationSeconds × timescale)`; default 15. */
  readonly durationSeconds?: number
  /** Units per second of the movie header; default 1000. */
  readonly timescale?: number
  /** Version of `mvhd` and `tkhd`: 0 has 32-bit times and duration, 1 has 64-bit; default 0. */
  readonly version?: 0 | 1
  /** Stored track size (before rotation); default 1080×1920. */
  readonly width?: number
  readonly height?: number
  /** Display rotation written in the track matrix; default 0. */
  readonly rotation?: 0 | 90 | 180 | 270
  /** Major brand of `ftyp`; default `isom` for MP4, `qt  ` for MOV. */
  readonly brand?: string
  /** Compatible brands of `ftyp`; default `[brand, "iso2", "avc1", "mp41"]` for MP4. */
  readonly compatibleBrands?: ReadonlyArray<string>
  /**
   * Tracks in order; default `["video"]`. Each has a `hdlr`: `vide`, `soun` (no picture size),
   * or `sbtl` (a subtitle strip as wide as the video and 120 high, as QuickTime writes them).
   */
  readonly tracks?: ReadonlyArray<TrackKind>
  /** `moov-first` (default, "fast start") or `mdat-first` (as cameras write). */
  readonly layout?: "moov-first" | "mdat-first"
  /** Payload bytes of `mdat`; default 64. */
  readonly mdatBytes?: number
  /**
   * How `mdat` states its size: `32-bit` (default), `64-bit` (size field 1 and a 64-bit
   * largesize), or `to-end` (size field 0; only with `moov-first`, where `mdat` is last).
   */
  readonly mdatSize?: "32-bit" | "64-bit" | "to-end"
  /** Samples of the video track's `stsz`; default 30 a second (at least 1). 0 makes a track with no video. */
  readonly videoSamples?: number
  /** Sample entry type of the video track's `stsd` (`avc1`, `hvc1`, …); default none (no sample table). */
  readonly codec?: string
}

/** Options of {@link aMov}: those of {@link anMp4}, and whether to write an `ftyp` box. */
export interface MovOptions extends VideoOptions {
  /** Default true. False writes a classic QuickTime file: `wide`, `mdat`, then `moov`. */
  readonly ftyp?: boolean
}

const box = (type: string, ...payload: ReadonlyArray<Uint8Array>): Uint8Array => {
  const body = concat(...payload)
  return concat(u32be(8 + body.length), ascii(type), body)
}

const fullBox = (type: string, version: number, flags: number, ...payload: ReadonlyArray<Uint8Array>): Uint8Array =>
  box(type, u8(version, (flags >>> 16) & 0xff, (flags >>> 8) & 0xff, flags & 0xff), ...payload)

const fixed16 = 0x10000

const matrixOf = (rotation: 0 | 90 | 180 | 270): Uint8Array => {
  const [a, b, c, d] =
    rotation === 90
      ? [0, fixed16, -fixed16, 0]
      : rotation === 180
        ? [-fixed16, 0, 0, -fixed16]
        : rotation === 270
          ? [0, -fixed16, fixed16, 0]
          : [fixed16, 0, 0, fixed16]
  return concat(u32be(a), u32be(b), u32be(0), u32be(c), u32be(d), u32be(0), u32be(0), u32be(0), u32be(0x40000000))
}

// creation and modification times, then the 32- or 64-bit fields that follow.
const times = (version: 0 | 1): Uint8Array => zeros(version === 1 ? 16 : 8)

const durationField = (version: 0 | 1, units: number): Uint8Array => (version === 1 ? u64be(units) : u32be(units))

const mvhd = (version: 0 | 1, timescale: number, units: number, nextTrackId: number): Uint8Array =>
  fullBox(
    "mvhd",
    version,
    0,
    times(version),
    u32be(timescale),
    durationField(version, units),
    u32be(fixed16),
    u16be(0x0100),
    zeros(10),
    matrixOf(0),
    zeros(24),
    u32be(nextTrackId)
  )

/** A track of {@link anMp4} or {@link aMov}. */
export type TrackKind = "video" | "audio" | "subtitle"

const handlers: Record<TrackKind, readonly [handler: string, name: string]> = {
  video: ["vide", "VideoHandler\0"],
  audio: ["soun", "SoundHandler\0"],
  subtitle: ["sbtl", "SubtitleHandler\0"]
}

interface TrackSpec {
  readonly kind: TrackKind
  readonly id: number
  readonly version: 0 | 1
  readonly timescale: number
  readonly units: number
  readonly width: number
  readonly height: number
  readonly rotation: 0 | 90 | 180 | 270
  readonly codec: string | undefined
  readonly samples: number
}

// A sample table: one visual sample entry (its 78-byte fixed part, no codec configuration) when
// there is a codec, and the sizes of `samples` samples (all of one size, as `stsz` allows).
const minf = (codec: string | undefined, samples: number): Uint8Array =>
  box(
    "minf",
    box(
      "stbl",
      ...(codec === undefined ? [] : [fullBox("stsd", 0, 0, u32be(1), box(codec, zeros(6), u16be(1), zeros(70)))]),
      fullBox("stsz", 0, 0, u32be(samples === 0 ? 0 : 1024), u32be(samples))
    )
  )

const trak = (track: TrackSpec): Uint8Array => {
  const video = track.kind === "video"
  const audio = track.kind === "audio"
  const [handler, name] = handlers[track.kind]
  const [width, height] = audio ? [0, 0] : video ? [track.width, track.height] : [track.width, 120]
  return box(
    "trak",
    fullBox(
      "tkhd",
      track.version,
      0x000003,
      times(track.version),
      u32be(track.id),
      zeros(4),
      durationField(track.version, track.units),
      zeros(8),
      u16be(0),
      u16be(audio ? 1 : 0),
      u16be(audio ? 0x0100 : 0),
      zeros(2),
      matrixOf(video ? track.rotation : 0),
      u32be(width * fixed16),
      u32be(height * fixed16)
    ),
    box(
      "mdia",
      fullBox("mdhd", 0, 0, zeros(8), u32be(track.timescale), u32be(track.units), u16be(0x55c4), u16be(0)),
      fullBox("hdlr", 0, 0, zeros(4), ascii(handler), zeros(12), ascii(name)),
      ...(video ? [minf(track.codec, track.samples)] : [])
    )
  )
}

const mdat = (payloadBytes: number, size: "32-bit" | "64-bit" | "to-end"): Uint8Array => {
  const payload = zeros(payloadBytes)
  if (size === "64-bit") return concat(u32be(1), ascii("mdat"), u64be(16 + payloadBytes), payload)
  if (size === "to-end") return concat(u32be(0), ascii("mdat"), payload)
  return box("mdat", payload)
}

/** The `moov` box {@link anMp4} writes for these options (for tests that build a file around it). */
export const moov = (options: VideoOptions): Uint8Array => {
  const version = options.version ?? 0
  const timescale = options.timescale ?? 1000
  const units = Math.round((options.durationSeconds ?? 15) * timescale)
  const kinds = options.tracks ?? ["video"]
  const tracks = kinds.map((kind, index) =>
    trak({
      kind,
      id: index + 1,
      version,
      timescale,
      units,
      width: options.width ?? 1080,
      height: options.height ?? 1920,
      rotation: options.rotation ?? 0,
      codec: options.codec,
      samples: options.videoSamples ?? Math.max(1, Math.round((options.durationSeconds ?? 15) * 30))
    })
  )
  return box("moov", mvhd(version, timescale, units, kinds.length + 1), ...tracks)
}

const isoFile = (head: ReadonlyArray<Uint8Array>, options: VideoOptions): Uint8Array => {
  const layout = options.layout ?? "moov-first"
  const size = options.mdatSize ?? "32-bit"
  if (size === "to-end" && layout !== "moov-first") throw new RangeError("mdatSize to-end needs layout moov-first")
  const data = mdat(options.mdatBytes ?? 64, size)
  const movie = moov(options)
  return layout === "moov-first" ? concat(...head, movie, data) : concat(...head, data, movie)
}

/** An `ftyp` box. */
export const ftyp = (brand: string, compatible: ReadonlyArray<string>): Uint8Array =>
  box("ftyp", ascii(brand), u32be(0x200), ...compatible.map(ascii))

/**
 * An MP4 container: `ftyp`, `moov` (`mvhd`, one `trak` per track with `tkhd` and
 * `mdia/{mdhd,hdlr}`) and `mdat`. Defaults: 15 s at timescale 1000, version 0, one
 * 1080×1920 video track, brand `isom`, moov first.
 *
 * @example
 * ```ts
 * const bytes = anMp4({ durationSeconds: 61.5, version: 1, layout: "mdat-first" })
 * ```
 */
export const anMp4 = (options: VideoOptions = {}): Uint8Array => {
  const brand = options.brand ?? "isom"
  return isoFile([ftyp(brand, options.compatibleBrands ?? [brand, "iso2", "avc1", "mp41"])], options)
}

/**
 * A QuickTime (MOV) container: like {@link anMp4} with brand `qt  `; with `ftyp: false`, a
 * classic file without `ftyp` that starts with a `wide` atom, then `mdat`, then `moov`.
 *
 * @example
 * ```ts
 * const bytes = aMov({ durationSeconds: 9, rotation: 90, width: 1920, height: 1080 })
 * ```
 */
export const aMov = (options: MovOptions = {}): Uint8Array => {
  if (options.ftyp === false) return isoFile([box("wide")], { layout: "mdat-first", ...options })
  const brand = options.brand ?? "qt  "
  return isoFile([ftyp(brand, options.compatibleBrands ?? [brand])], options)
}
