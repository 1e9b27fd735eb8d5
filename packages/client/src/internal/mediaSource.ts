/**
 * A `MediaSource` as bytes read by range: in memory, from a file (Node), a `Blob`, or a stream
 * read front to back (its parts are asked for in order).
 */
import type { MediaSource } from "../Requests.ts"

/** A file to upload, read part by part. */
export interface OpenedSource {
  readonly size: number
  readonly filename: string | undefined
  /** The bytes from `start`, `length` of them; for a stream, `start` follows the previous read. */
  readonly read: (start: number, length: number) => Promise<Uint8Array>
  readonly close: () => Promise<void>
}

const base64ToBytes = (text: string): Uint8Array => {
  const payload = text.startsWith("data:") ? text.slice(text.indexOf(",") + 1) : text
  const binary = atob(payload.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/"))
  return Uint8Array.from(binary, (char) => char.charCodeAt(0))
}

const lastSegment = (path: string) => path.split(/[\\/]/).filter((s) => s !== "").at(-1)

const fromStream = (stream: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>, size: number, filename: string): OpenedSource => {
  const iterator = (Symbol.asyncIterator in stream ? stream : streamIterable(stream))[Symbol.asyncIterator]()
  let pending: Uint8Array = new Uint8Array()
  return {
    size,
    filename,
    read: async (_start, length) => {
      const out = new Uint8Array(length)
      let filled = 0
      while (filled < length) {
        if (pending.length === 0) {
          const next = await iterator.next()
          if (next.done) break
          pending = next.value
        }
        const take = Math.min(length - filled, pending.length)
        out.set(pending.subarray(0, take), filled)
        pending = pending.subarray(take)
        filled += take
      }
      return filled === length ? out : out.subarray(0, filled)
    },
    close: async () => {
      await iterator.return?.()
    }
  }
}

const streamIterable = (stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> => ({
  async *[Symbol.asyncIterator]() {
    const reader = stream.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        yield value
      }
    } finally {
      reader.releaseLock()
    }
  }
})

/** Opens a source for reading by range. */
export const openSource = async (source: MediaSource): Promise<OpenedSource> => {
  if ("data" in source) {
    const bytes = typeof source.data === "string" ? base64ToBytes(source.data) : source.data
    return {
      size: bytes.length,
      filename: source.filename,
      read: async (start, length) => bytes.subarray(start, start + length),
      close: async () => undefined
    }
  }
  if ("blob" in source) {
    const { blob } = source
    return {
      size: blob.size,
      filename: source.filename ?? ((blob as { readonly name?: string }).name || undefined),
      read: async (start, length) => new Uint8Array(await blob.slice(start, start + length).arrayBuffer()),
      close: async () => undefined
    }
  }
  if ("path" in source) {
    // Loaded only when a path is given, so the client still runs where there is no file system.
    const fs = await import("node:fs/promises")
    const handle = await fs.open(source.path, "r")
    const { size } = await handle.stat()
    return {
      size,
      filename: source.filename ?? lastSegment(source.path),
      read: async (start, length) => {
        const buffer = new Uint8Array(length)
        const { bytesRead } = await handle.read(buffer, 0, length, start)
        return buffer.subarray(0, bytesRead)
      },
      close: () => handle.close()
    }
  }
  return fromStream(source.stream, source.size, source.filename)
}
