/**
 * The resumable-upload engine behind `media.upload`: what the contract cannot say. A file up to
 * 10 MiB goes inline (POST /v1/media); a larger one in parts of a resumable upload (POST
 * /v1/media/uploads, a PUT per part, then complete), each part sent again alone when its
 * connection fails, with progress reported after each stored part.
 *
 * @internal
 */
import type { Media as MediaSchemas } from "@postwire/domain"
import { Media as MediaContract } from "@postwire/domain"
import { Effect, Stream } from "effect"
import { Base64 } from "effect/encoding"
import type { HttpClientResponse } from "effect/http"
import type { PostwireClientError } from "../ClientError.ts"
import type { CreateOptions, ImportMediaInput, MediaSource, MediaUploadOptions, UploadMediaInput } from "../Requests.ts"
import type { Media } from "../Resources.ts"
import { type ErrorContext, invalidRequest, unreadableSource } from "./errors.ts"
import { idempotencyHeaders, type RawEndpoint } from "./derive.ts"
import { type OpenedSource, openSource } from "./mediaSource.ts"

/** What the upload engine needs from the derived client. */
export interface UploadDeps {
  readonly media: Readonly<Record<"upload" | "createUpload" | "uploadPart" | "completeUpload", RawEndpoint>>
  readonly call: <A>(
    send: Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>,
    decode: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, unknown>
  ) => Effect.Effect<A, PostwireClientError>
  readonly context: ErrorContext
}

const maxInlineUploadBytes = MediaContract.maxInlineUploadBytes

const toBase64 = (data: Uint8Array | string): string => (typeof data === "string" ? data : Base64.encode(data))

// Callers without `exactOptionalPropertyTypes` may write `{ filename: undefined }`; JSON drops such keys, so do we.
const defined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as A

/** `media.upload` and `media.import`, on the derived client's raw endpoints. */
export const makeUploads = ({ media, call, context }: UploadDeps) => {
  const post = (payload: object, options: CreateOptions | undefined): Effect.Effect<Media, PostwireClientError> =>
    call(media.upload.send({ payload, headers: idempotencyHeaders(options), responseMode: "response-only" }), media.upload.decode) as Effect.Effect<
      Media,
      PostwireClientError
    >

  const uploadInline = (input: UploadMediaInput, options?: CreateOptions) =>
    post(input.filename === undefined ? { data: toBase64(input.data) } : { data: toBase64(input.data), filename: input.filename }, options)

  const fromSource = <A>(run: () => Promise<A>) =>
    Effect.tryPromise({
      try: run,
      catch: (cause) => invalidRequest([{ field: "source", detail: unreadableSource(cause) }], context)
    })

  // Sends one part, again after a failure that a retry can mend (a dropped connection, a 5xx,
  // a 429 after its Retry-After): a part is replaced whole, so sending it twice is harmless.
  const sendPart = (id: string, size: number, start: number, bytes: Uint8Array, attempts: number) => {
    const once = call(
      media.uploadPart.send({
        params: { id },
        headers: { "content-range": `bytes ${start}-${start + bytes.length - 1}/${size}` },
        payload: Stream.make(bytes),
        responseMode: "response-only"
      }),
      media.uploadPart.decode
    ) as Effect.Effect<MediaSchemas.MediaUpload, PostwireClientError>
    const attempt = (left: number, delayMillis: number): Effect.Effect<MediaSchemas.MediaUpload, PostwireClientError> =>
      Effect.catch(once, (error) => {
        const mendable = error._tag !== "PostwireApiError" || error.status >= 500 || error.status === 429
        if (!mendable || left <= 1) return Effect.fail(error)
        const wait = error._tag === "PostwireApiError" && error.retryAfter !== undefined ? error.retryAfter * 1000 : delayMillis
        return Effect.sleep(wait).pipe(Effect.andThen(attempt(left - 1, Math.min(delayMillis * 2, 8_000))))
      })
    return attempt(Math.max(1, attempts), 500)
  }

  const uploadInParts = Effect.fn("postwire.media.uploadInParts")(function* (
    source: OpenedSource,
    options: MediaUploadOptions | undefined
  ) {
    const started = (yield* call(
      media.createUpload.send({ payload: { filename: source.filename ?? "upload", size: source.size }, responseMode: "response-only" }),
      media.createUpload.decode
    )) as MediaSchemas.MediaUpload
    for (let n = 0; n < started.part_count; n++) {
      const start = n * started.part_size
      const length = Math.min(started.part_size, source.size - start)
      const bytes = yield* fromSource(() => source.read(start, length))
      const answer = yield* sendPart(started.id, source.size, start, bytes, options?.partAttempts ?? 5)
      options?.onProgress?.({ sentBytes: answer.bytes_received, totalBytes: source.size })
    }
    return (yield* call(
      media.completeUpload.send({ params: { id: started.id }, responseMode: "response-only" }),
      media.completeUpload.decode
    )) as Media
  })

  const upload = Effect.fn("postwire.media.upload")(function* (input: MediaSource, options?: MediaUploadOptions) {
    if ("data" in input && (typeof input.data === "string" ? input.data.length * 0.75 : input.data.length) <= maxInlineUploadBytes) {
      const uploaded = yield* uploadInline(input, options)
      options?.onProgress?.({ sentBytes: uploaded.size_bytes ?? 0, totalBytes: uploaded.size_bytes ?? 0 })
      return uploaded
    }
    return yield* Effect.acquireUseRelease(
      fromSource(() => openSource(input)),
      (source) =>
        source.size <= maxInlineUploadBytes
          ? fromSource(() => source.read(0, source.size)).pipe(
              Effect.flatMap((data) => uploadInline(source.filename === undefined ? { data } : { data, filename: source.filename }, options)),
              Effect.tap(() => Effect.sync(() => options?.onProgress?.({ sentBytes: source.size, totalBytes: source.size })))
            )
          : uploadInParts(source, options),
      (source) => Effect.promise(() => source.close().catch(() => undefined))
    )
  })

  const importFrom = Effect.fn("postwire.media.import")(function* (input: ImportMediaInput, options?: CreateOptions) {
    return yield* post(defined(input), options)
  })

  return { upload, import: importFrom }
}
