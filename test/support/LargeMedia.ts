/**
 * Large media files for upload tests, never held in memory: a valid MP4 of any size (ftyp, a
 * 64-bit `mdat` of patterned bytes, then `moov`, as cameras write it) whose bytes are computed
 * for any range on demand, and senders of resumable-upload parts over real HTTP.
 */
import { request } from "node:http"
import { ftyp, moov, type VideoOptions } from "./Media.ts"
import { call, type Reply } from "./Http.ts"

/** A file whose bytes are computed for any range. */
export interface LargeFile {
  readonly size: number
  /** The bytes from `start`, `length` of them. */
  readonly bytesAt: (start: number, length: number) => Uint8Array
}

const mdatHeader = (payload: number): Uint8Array => {
  const header = new Uint8Array(16)
  const view = new DataView(header.buffer)
  view.setUint32(0, 1)
  header.set([0x6d, 0x64, 0x61, 0x74], 4)
  const total = payload + 16
  view.setUint32(8, Math.floor(total / 0x100000000))
  view.setUint32(12, total % 0x100000000)
  return header
}

/**
 * An MP4 of exactly `size` bytes (at least a few kilobytes), `mdat` first and `moov` last, so a
 * reader must hop over the whole `mdat` to find the movie header.
 */
export const aLargeMp4 = (size: number, options: VideoOptions = {}): LargeFile => {
  const head = ftyp("isom", ["isom", "iso2", "avc1", "mp41"])
  const tail = moov(options)
  const payload = size - head.length - 16 - tail.length
  if (payload < 0) throw new RangeError(`an MP4 needs at least ${size - payload} bytes`)
  const prefix = new Uint8Array(head.length + 16)
  prefix.set(head)
  prefix.set(mdatHeader(payload), head.length)
  const tailStart = prefix.length + payload
  return {
    size,
    bytesAt: (start, length) => {
      const out = new Uint8Array(Math.max(0, Math.min(length, size - start)))
      for (let i = 0; i < out.length; ) {
        const at = start + i
        if (at < prefix.length) {
          const n = Math.min(out.length - i, prefix.length - at)
          out.set(prefix.subarray(at, at + n), i)
          i += n
        } else if (at < tailStart) {
          const n = Math.min(out.length - i, tailStart - at)
          // A pattern rather than zeros, so misplaced bytes would show.
          for (let k = 0; k < n; k++) out[i + k] = (at + k) & 0xff
          i += n
        } else {
          const n = out.length - i
          out.set(tail.subarray(at - tailStart, at - tailStart + n), i)
          i += n
        }
      }
      return out
    }
  }
}

/** The range of part `n` of a file cut in parts of `partSize`. */
export const partRange = (file: LargeFile, partSize: number, n: number) => {
  const start = n * partSize
  const end = Math.min(start + partSize, file.size) - 1
  return { start, end, header: `bytes ${start}-${end}/${file.size}` }
}

const chunkBytes = 1024 * 1024

/** Sends part `n` as a stream of 1 MiB chunks computed as they are sent. */
export const sendPart = async (uploadUrl: string, key: string, file: LargeFile, partSize: number, n: number): Promise<Reply> => {
  const { start, end, header } = partRange(file, partSize, n)
  let at = start
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at > end) return controller.close()
      const length = Math.min(chunkBytes, end + 1 - at)
      controller.enqueue(file.bytesAt(at, length))
      at += length
    }
  })
  const response = await fetch(uploadUrl, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-range": header, "content-type": "application/octet-stream" },
    body,
    duplex: "half"
  } as RequestInit)
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
}

/**
 * Starts sending part `n` and cuts the connection after `sentBytes` of it, as a crashed client
 * or a dropped network would; resolves once the connection is closed.
 */
export const sendPartAndDropConnection = (
  uploadUrl: string,
  key: string,
  file: LargeFile,
  partSize: number,
  n: number,
  sentBytes: number
): Promise<void> =>
  new Promise((resolve) => {
    const { start, end, header } = partRange(file, partSize, n)
    const req = request(uploadUrl, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${key}`,
        "content-range": header,
        "content-type": "application/octet-stream",
        "content-length": String(end - start + 1)
      }
    })
    req.on("error", () => resolve())
    req.on("close", () => resolve())
    req.write(file.bytesAt(start, sentBytes), () => {
      // Give the server a moment to start streaming the part, then drop the connection.
      setTimeout(() => req.destroy(), 100)
    })
  })

/** Asks for an upload until `done` says so. */
export const uploadState = (uploadUrl: string, key: string) =>
  call(new URL(uploadUrl).origin, "GET", new URL(uploadUrl).pathname, { key })
