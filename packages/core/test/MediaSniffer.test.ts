import { inflateSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { type SniffResult, sniffMedia } from "../src/media/MediaSniffer.ts"
import { aGif, aJpeg, aMov, anMp4, aPng, aWebp, crc32 } from "../../../test/support/Media.ts"

const text = (value: string): Uint8Array => new TextEncoder().encode(value)

const reasonOf = (result: SniffResult): string => {
  assert.strictEqual(result._tag, "Unsupported")
  return result._tag === "Unsupported" ? result.reason : ""
}

// PNG chunks as [type, data, storedCrc], to check the fixture is a real PNG.
const pngChunks = (bytes: Uint8Array): Array<readonly [string, Uint8Array, number]> => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const chunks: Array<readonly [string, Uint8Array, number]> = []
  for (let at = 8; at < bytes.length; ) {
    const length = view.getUint32(at)
    const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8))
    chunks.push([type, bytes.subarray(at + 8, at + 8 + length), view.getUint32(at + 8 + length)])
    at += 12 + length
  }
  return chunks
}

// Offset of the first box of `type` (its size field), found by its four-character code.
const boxAt = (bytes: Uint8Array, type: string): number => {
  const code = text(type)
  const at = bytes.findIndex((_, index) => code.every((byte, k) => bytes[index + k] === byte))
  assert.isAtLeast(at, 4, `no ${type} box`)
  return at - 4
}

// A tiny deterministic generator, so a failing corruption case can be replayed.
const randomBytes = (seed: number) => {
  let state = seed
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0
    return state >>> 24
  }
}

describe("sniffMedia", () => {
  describe("images", () => {
    it("reads a PNG's size from IHDR", () => {
      assert.deepStrictEqual(sniffMedia(aPng({ width: 1080, height: 1350 })), {
        _tag: "Image",
        mime: "image/png",
        width: 1080,
        height: 1350
      })
    })

    it("reads a JPEG's size from its SOF0 frame header", () => {
      assert.deepStrictEqual(sniffMedia(aJpeg({ width: 4032, height: 3024 })), {
        _tag: "Image",
        mime: "image/jpeg",
        width: 4032,
        height: 3024
      })
    })

    it("skips an EXIF segment before the JPEG frame header by its length", () => {
      assert.deepStrictEqual(sniffMedia(aJpeg({ width: 640, height: 480, exifBytes: 60_000 })), {
        _tag: "Image",
        mime: "image/jpeg",
        width: 640,
        height: 480
      })
    })

    it("reads progressive (SOF2) JPEG frame headers too", () => {
      const bytes = aJpeg({ width: 800, height: 600 })
      const sof = bytes.findIndex((byte, index) => byte === 0xff && bytes[index + 1] === 0xc0)
      bytes[sof + 1] = 0xc2
      assert.deepStrictEqual(sniffMedia(bytes), { _tag: "Image", mime: "image/jpeg", width: 800, height: 600 })
    })

    it("skips fill bytes between JPEG segments", () => {
      const bytes = aJpeg({ width: 10, height: 20 })
      const padded = new Uint8Array([...bytes.subarray(0, 2), 0xff, 0xff, 0xff, ...bytes.subarray(2)])
      assert.deepStrictEqual(sniffMedia(padded), { _tag: "Image", mime: "image/jpeg", width: 10, height: 20 })
    })

    for (const encoding of ["lossless", "extended", "lossy"] as const) {
      it(`reads a ${encoding} WebP's size`, () => {
        assert.deepStrictEqual(sniffMedia(aWebp({ width: 1080, height: 1920, encoding })), {
          _tag: "Image",
          mime: "image/webp",
          width: 1080,
          height: 1920
        })
      })
    }

    it("reads the largest lossless WebP size (14-bit fields)", () => {
      assert.deepStrictEqual(sniffMedia(aWebp({ width: 16_384, height: 16_384 })), {
        _tag: "Image",
        mime: "image/webp",
        width: 16_384,
        height: 16_384
      })
    })

    it("reads an extended WebP's canvas size from its 24-bit fields", () => {
      const bytes = aWebp({ encoding: "extended" })
      // VP8X canvas width - 1 and height - 1 at offsets 24 and 27, little-endian.
      bytes.set([0x6f, 0x11, 0x01], 24)
      bytes.set([0x4f, 0xc3, 0x00], 27)
      assert.deepStrictEqual(sniffMedia(bytes), { _tag: "Image", mime: "image/webp", width: 70_000, height: 50_000 })
    })

    it("reads a view into a larger buffer (a Node Buffer slice) at its own offset", () => {
      const png = aPng({ width: 7, height: 9 })
      const backing = new Uint8Array(png.length + 100)
      backing.set(png, 37)
      assert.deepStrictEqual(sniffMedia(backing.subarray(37, 37 + png.length)), {
        _tag: "Image",
        mime: "image/png",
        width: 7,
        height: 9
      })
    })
  })

  describe("videos", () => {
    it.each(["avc1", "hvc1", "av01"])("reads the video track's codec %s from its sample description", (codec) => {
      assert.deepStrictEqual(sniffMedia(anMp4({ durationSeconds: 4, width: 640, height: 360, codec })), {
        _tag: "Video",
        mime: "video/mp4",
        durationSeconds: 4,
        width: 640,
        height: 360,
        codec
      })
    })

    it("takes the codec of the video track, not of an audio track before it", () => {
      const result = sniffMedia(anMp4({ tracks: ["audio", "video"], codec: "hvc1" }))
      assert.strictEqual(result._tag === "Video" ? result.codec : undefined, "hvc1")
    })

    it("reads an MP4's duration from a version 0 mvhd and its size from the video tkhd", () => {
      assert.deepStrictEqual(sniffMedia(anMp4({ durationSeconds: 15, width: 1080, height: 1920 })), {
        _tag: "Video",
        mime: "video/mp4",
        durationSeconds: 15,
        width: 1080,
        height: 1920
      })
    })

    it("reads a version 1 mvhd (64-bit duration) with a non-default timescale", () => {
      const result = sniffMedia(anMp4({ durationSeconds: 61.5, timescale: 90_000, version: 1 }))
      assert.deepStrictEqual(result, {
        _tag: "Video",
        mime: "video/mp4",
        durationSeconds: 61.5,
        width: 1080,
        height: 1920
      })
    })

    it("reads a version 1 duration that does not fit in 32 bits", () => {
      const result = sniffMedia(anMp4({ durationSeconds: 100_000, timescale: 90_000, version: 1 }))
      assert.strictEqual(result._tag === "Video" && result.durationSeconds, 100_000)
    })

    it("keeps fractional durations exact to the timescale", () => {
      const result = sniffMedia(anMp4({ durationSeconds: 59.97, timescale: 600 }))
      assert.strictEqual(result._tag === "Video" && result.durationSeconds, 35_982 / 600)
    })

    it("finds moov after mdat (camera layout)", () => {
      const result = sniffMedia(anMp4({ durationSeconds: 42, layout: "mdat-first", mdatBytes: 100_000 }))
      assert.strictEqual(result._tag === "Video" && result.durationSeconds, 42)
    })

    it("skips an mdat with a 64-bit size", () => {
      const bytes = anMp4({ durationSeconds: 7, layout: "mdat-first", mdatSize: "64-bit" })
      assert.strictEqual(new DataView(bytes.buffer).getUint32(boxAt(bytes, "mdat")), 1)
      const result = sniffMedia(bytes)
      assert.strictEqual(result._tag === "Video" && result.durationSeconds, 7)
    })

    it("accepts a last mdat whose size is 0 (to the end of the file)", () => {
      const result = sniffMedia(anMp4({ durationSeconds: 3, mdatSize: "to-end" }))
      assert.strictEqual(result._tag === "Video" && result.durationSeconds, 3)
    })

    it("refuses a file whose moov is missing, e.g. an upload cut off inside mdat: nothing says it holds a video", () => {
      const bytes = anMp4({ durationSeconds: 30, layout: "mdat-first", mdatBytes: 1000 })
      assert.deepStrictEqual(sniffMedia(bytes.subarray(0, 600)), {
        _tag: "Unsupported",
        reason: "the movie has no movie header (moov)"
      })
    })

    it("does not read past a declared mdat of several gigabytes", () => {
      const bytes = anMp4({ durationSeconds: 5, layout: "mdat-first", mdatSize: "64-bit" })
      new DataView(bytes.buffer).setUint32(boxAt(bytes, "mdat") + 8, 2)
      assert.deepStrictEqual(sniffMedia(bytes), { _tag: "Unsupported", reason: "the movie has no movie header (moov)" })
    })

    it("refuses a container whose video track has no samples, and a bare header with no track (issue #37)", () => {
      assert.deepStrictEqual(sniffMedia(anMp4({ videoSamples: 0 })), { _tag: "Unsupported", reason: "the video track has no samples" })
      const header = new Uint8Array([...anMp4().subarray(0, 32), 0, 0, 0, 17, ...Buffer.from("moov"), 0, 0, 0, 9, ...Buffer.from("free"), 0])
      assert.strictEqual(header.length, 49)
      assert.deepStrictEqual(sniffMedia(header), { _tag: "Unsupported", reason: "the movie has no video track" })
    })

    it("swaps the display size of a track rotated by 90° or 270°", () => {
      const quarter = sniffMedia(anMp4({ width: 1920, height: 1080, rotation: 90 }))
      const threeQuarters = sniffMedia(anMp4({ width: 1920, height: 1080, rotation: 270 }))
      const half = sniffMedia(anMp4({ width: 1920, height: 1080, rotation: 180 }))
      assert.deepStrictEqual(
        [quarter, threeQuarters, half].map((result) => (result._tag === "Video" ? [result.width, result.height] : [])),
        [
          [1080, 1920],
          [1080, 1920],
          [1920, 1080]
        ]
      )
    })

    it("takes the size of the first video track, not of an audio track before it", () => {
      const result = sniffMedia(anMp4({ tracks: ["audio", "video"], width: 720, height: 1280, version: 1 }))
      assert.deepStrictEqual(result, {
        _tag: "Video",
        mime: "video/mp4",
        durationSeconds: 15,
        width: 720,
        height: 1280
      })
    })

    it("takes the size of the first video track, not of a subtitle track before it that has a size", () => {
      const result = sniffMedia(aMov({ tracks: ["subtitle", "audio", "video"], width: 1920, height: 1080 }))
      assert.deepStrictEqual(result, {
        _tag: "Video",
        mime: "video/quicktime",
        durationSeconds: 15,
        width: 1920,
        height: 1080
      })
    })

    it("reads a last moov whose size is 0 (to the end of the file)", () => {
      const bytes = anMp4({ durationSeconds: 8, layout: "mdat-first" })
      new DataView(bytes.buffer).setUint32(boxAt(bytes, "moov"), 0)
      assert.deepStrictEqual(sniffMedia(bytes), {
        _tag: "Video",
        mime: "video/mp4",
        durationSeconds: 8,
        width: 1080,
        height: 1920
      })
    })

    it("refuses a file with no video track (audio only)", () => {
      assert.deepStrictEqual(sniffMedia(anMp4({ tracks: ["audio"], durationSeconds: 4 })), {
        _tag: "Unsupported",
        reason: "the movie has no video track"
      })
    })

    it("treats the ftyp brand qt as QuickTime", () => {
      assert.deepStrictEqual(sniffMedia(aMov({ durationSeconds: 9, width: 1920, height: 1080, rotation: 90 })), {
        _tag: "Video",
        mime: "video/quicktime",
        durationSeconds: 9,
        width: 1080,
        height: 1920
      })
    })

    it("treats a file without ftyp that starts with wide, mdat or moov as QuickTime", () => {
      const classic = aMov({ ftyp: false, durationSeconds: 12 })
      const mdatFirst = classic.subarray(8)
      const moovFirst = aMov({ ftyp: false, durationSeconds: 12, layout: "moov-first" }).subarray(8)
      assert.deepStrictEqual(
        [classic, mdatFirst, moovFirst].map((bytes) => {
          const result = sniffMedia(bytes)
          return result._tag === "Video" ? [result.mime, result.durationSeconds] : result._tag
        }),
        [
          ["video/quicktime", 12],
          ["video/quicktime", 12],
          ["video/quicktime", 12]
        ]
      )
    })

    it("decides by the major brand, then by the compatible brands", () => {
      const mimeOf = (brand: string, compatibleBrands: ReadonlyArray<string>) => {
        const result = sniffMedia(anMp4({ brand, compatibleBrands }))
        return result._tag === "Unsupported" ? result.reason : result.mime
      }
      assert.deepStrictEqual(
        [
          mimeOf("mp42", ["mp42", "isom"]),
          mimeOf("M4V ", ["M4V ", "M4A ", "mp42", "isom"]),
          mimeOf("XYZ1", ["qt  "]),
          mimeOf("XYZ1", ["XYZ1", "iso6"]),
          mimeOf("XYZ1", ["XYZ1"])
        ],
        ["video/mp4", "video/mp4", "video/quicktime", "video/mp4", 'unrecognized ISO media brand "XYZ1"']
      )
    })

    it("uses the fragment duration (mvex/mehd) when mvhd's is zero", () => {
      const bytes = anMp4({ durationSeconds: 0 })
      const mehd = new Uint8Array([0, 0, 0, 16, ...text("mehd"), 0, 0, 0, 0, 0, 0, 0x4e, 0x20])
      const mvex = new Uint8Array([0, 0, 0, 8 + mehd.length, ...text("mvex"), ...mehd])
      const moovAt = boxAt(bytes, "moov")
      const moovSize = new DataView(bytes.buffer).getUint32(moovAt)
      const fragmented = new Uint8Array([
        ...bytes.subarray(0, moovAt + moovSize),
        ...mvex,
        ...bytes.subarray(moovAt + moovSize)
      ])
      new DataView(fragmented.buffer).setUint32(moovAt, moovSize + mvex.length)
      assert.deepStrictEqual([sniffMedia(bytes), sniffMedia(fragmented)].map((r) => r._tag === "Video" && r.durationSeconds), [
        undefined,
        20
      ])
    })
  })

  describe("the bytes decide, not the client's name or type", () => {
    const uploads = [
      { name: "holiday.mp4", type: "video/mp4", bytes: aPng({ width: 2, height: 2 }), expected: "image/png" },
      { name: "clip.jpg", type: "image/jpeg", bytes: anMp4(), expected: "video/mp4" },
      { name: "photo.png", type: "image/png", bytes: aGif(), expected: "GIF is not an accepted format" },
      { name: "cat.webp", type: "image/webp", bytes: aMov(), expected: "video/quicktime" }
    ]
    for (const upload of uploads) {
      it(`sniffs ${upload.name} sent as ${upload.type} as ${upload.expected}`, () => {
        const result = sniffMedia(upload.bytes)
        assert.strictEqual(result._tag === "Unsupported" ? result.reason : result.mime, upload.expected)
      })
    }
  })

  describe("unsupported input", () => {
    const heic = anMp4({ brand: "heic", compatibleBrands: ["mif1", "heic"] })
    const cases: ReadonlyArray<readonly [string, Uint8Array, string]> = [
      ["empty input", new Uint8Array(0), "empty input"],
      ["a GIF", aGif(), "GIF is not an accepted format"],
      ["a GIF87a", text("GIF87a\x01\x00\x01\x00"), "GIF is not an accepted format"],
      ["a PDF", text("%PDF-1.7\n%âãÏÓ\n1 0 obj"), "PDF is not an accepted format"],
      ["a little-endian TIFF", new Uint8Array([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]), "TIFF is not an accepted format"],
      ["a WebM", new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]), "WebM/Matroska is not an accepted format"],
      ["a WAV", text("RIFF\x24\x00\x00\x00WAVEfmt "), "WAV is not an accepted format"],
      ["an AVI", text("RIFF\x24\x00\x00\x00AVI LIST"), "AVI is not an accepted format"],
      ["a ZIP", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), "ZIP is not an accepted format"],
      ["plain text", text("hello, this is not a picture"), "unrecognized format"],
      ["an SVG", text('<svg xmlns="http://www.w3.org/2000/svg"/>'), "unrecognized format"],
      ["a HEIC photo", heic, "HEIF/AVIF is not an accepted format"],
      ["an AVIF", anMp4({ brand: "avif", compatibleBrands: ["avif", "mif1", "miaf"] }), "HEIF/AVIF is not an accepted format"],
      ["a HEIF with an unknown major brand", anMp4({ brand: "XYZ1", compatibleBrands: ["mif1", "iso8"] }), "HEIF/AVIF is not an accepted format"],
      ["an M4A (audio)", anMp4({ brand: "M4A ", tracks: ["audio"] }), "audio-only MP4 is not an accepted format"],
      ["a 3GP", anMp4({ brand: "3gp4", compatibleBrands: ["isom", "3gp4"] }), "3GPP is not an accepted format"],
      ["a PNG cut inside IHDR", aPng().subarray(0, 20), "truncated PNG header"],
      ["a PNG whose first chunk is not IHDR", new Uint8Array([...aPng().subarray(0, 12), ...text("CgBI"), ...new Uint8Array(8)]), "PNG without an IHDR chunk"],
      ["a PNG of zero width", (() => {
        const bytes = aPng()
        bytes.fill(0, 16, 20)
        return bytes
      })(), "image/png header with a zero dimension"],
      ["a JPEG cut before its frame header", aJpeg({ exifBytes: 1000 }).subarray(0, 500), "truncated JPEG header"],
      ["a JPEG that starts its scan without a frame header", new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9]), "JPEG without a frame header"],
      ["a JPEG with garbage between segments", new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0x12, 0x34]), "corrupt JPEG marker"],
      ["a JPEG with a segment length below 2", new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 0, 0]), "corrupt JPEG segment length"],
      ["a WebP cut inside its VP8L header", aWebp().subarray(0, 22), "truncated WebP header"],
      ["a WebP whose first chunk is unknown", text("RIFF\x10\x00\x00\x00WEBPALPH\x04\x00\x00\x00\x00\x00\x00\x00"), "WebP with an unknown first chunk"],
      ["a lossy WebP that is not a key frame", (() => {
        const bytes = aWebp({ encoding: "lossy" })
        bytes[20] = bytes[20]! | 1
        return bytes
      })(), "WebP VP8 stream without a key frame"],
      ["an MP4 cut inside ftyp", anMp4().subarray(0, 20), "truncated ftyp box"],
      ["an ftyp box shorter than its brands", new Uint8Array([0, 0, 0, 12, ...text("ftypisom"), 0, 0, 0, 0]), "truncated ftyp box"],
      ["a mdat-named box with an impossible size", new Uint8Array([0, 0, 0, 5, ...text("mdat"), 0, 0, 0, 0]), "unrecognized format"]
    ]
    for (const [name, bytes, reason] of cases) {
      it(`refuses ${name}: ${reason}`, () => {
        assert.strictEqual(reasonOf(sniffMedia(bytes)), reason)
      })
    }
  })

  describe("robustness", () => {
    it("never throws on any prefix of an MP4, and never invents a duration", () => {
      const bytes = anMp4({ durationSeconds: 21, layout: "mdat-first", mdatBytes: 24, version: 1 })
      const full = sniffMedia(bytes)
      const tags = new Set<string>()
      for (let length = 0; length <= bytes.length; length++) {
        const result = sniffMedia(bytes.subarray(0, length))
        tags.add(result._tag)
        if (result._tag === "Video") assert.oneOf(result.durationSeconds, [undefined, 21], `length ${length}`)
        if (result._tag === "Image") assert.fail(`length ${length} sniffed as an image`)
      }
      assert.deepStrictEqual([...tags].sort(), ["Unsupported", "Video"])
      assert.strictEqual(full._tag === "Video" && full.durationSeconds, 21)
    })

    it("never throws on any prefix of every fixture", () => {
      const fixtures = [
        aPng({ width: 3, height: 3 }),
        aJpeg({ width: 3, height: 3, exifBytes: 10 }),
        aWebp({ encoding: "lossy" }),
        aWebp({ encoding: "extended" }),
        aMov({ ftyp: false, version: 1 }),
        anMp4({ mdatSize: "64-bit", tracks: ["audio", "video"] })
      ]
      for (const bytes of fixtures) {
        const full = sniffMedia(bytes)
        assert.notStrictEqual(full._tag, "Unsupported")
        for (let length = 0; length < bytes.length; length++) {
          const result = sniffMedia(bytes.subarray(0, length))
          assert.oneOf(result._tag, ["Unsupported", full._tag])
        }
      }
    })

    it("never throws on corrupted bytes", () => {
      const next = randomBytes(20_261_122)
      const fixtures = [aPng(), aJpeg({ exifBytes: 40 }), aWebp({ encoding: "extended" }), anMp4({ version: 1 }), aMov({ ftyp: false })]
      for (let round = 0; round < 2000; round++) {
        const bytes = Uint8Array.from(fixtures[round % fixtures.length]!)
        for (let flips = 0; flips < 1 + (next() % 8); flips++) bytes[(next() << 8 | next()) % bytes.length] = next()
        const result = sniffMedia(bytes)
        assert.oneOf(result._tag, ["Image", "Video", "Unsupported"])
      }
    })
  })

  describe("fixtures", () => {
    it("aPng writes correct CRCs and a zlib stream of the right size", () => {
      const bytes = aPng({ width: 20, height: 3 })
      const chunks = pngChunks(bytes)
      assert.deepStrictEqual(
        chunks.map(([type]) => type),
        ["IHDR", "IDAT", "IEND"]
      )
      for (const [type, data, storedCrc] of chunks) {
        assert.strictEqual(crc32(new Uint8Array([...text(type), ...data])), storedCrc, type)
      }
      assert.strictEqual(inflateSync(chunks[1]![1]).length, 3 * (1 + 3))
    })

    it("crc32 matches the standard check value", () => {
      assert.strictEqual(crc32(text("123456789")), 0xcbf43926)
    })
  })
})
