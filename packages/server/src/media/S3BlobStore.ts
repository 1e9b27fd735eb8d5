/**
 * Media bytes in an S3-compatible bucket, through the official AWS SDK v3: what several
 * instances share (docs/configuration.md, `POSTWIRE_MEDIA_S3_URL`).
 *
 * - The parts of a resumable upload go to the bucket as a multipart upload (part `n` is the
 *   bucket's part `n + 1`), each part streamed from the request; completing joins them there.
 * - Streams of unknown length (URL imports) go up through `@aws-sdk/lib-storage`'s `Upload`.
 * - Platforms fetch media from the bucket's own presigned address (`s3-request-presigner`).
 *
 * Checksums are computed only where the S3 API requires them, so S3-compatible servers that do
 * not speak the newer `aws-chunked` trailers (MinIO versions, s3rver) work too.
 *
 * @since 0.3.0
 */
import { Readable } from "node:stream"
import { Effect, Layer, Stream } from "effect"
import { BlobError, BlobStore, type BlobStoreShape, PartLengthMismatch } from "@postwire/core"

/** Where the bucket is and how to reach it. */
export interface S3Settings {
  /** The service's address, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`. */
  readonly endpoint: string
  readonly bucket: string
  readonly region: string
  /** Addresses as `endpoint/bucket/key` (MinIO, most self-hosted servers) rather than `bucket.endpoint/key`. */
  readonly pathStyle: boolean
  /** Static credentials; absent, the SDK's default chain (environment, profile, instance role) applies. */
  readonly accessKeyId?: string | undefined
  readonly secretAccessKey?: string | undefined
  /** Prepended to every key, e.g. `postwire/`. */
  readonly prefix: string
}

/**
 * Reads `s3://key:secret@host:port/bucket?region=…&path_style=true&tls=false&prefix=…`; the key
 * and secret are URL-encoded, `tls=false` reaches the host over plain http. Throws a message
 * naming what is wrong.
 */
export const parseS3Url = (raw: string): S3Settings => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error("expected s3://key:secret@host[:port]/bucket?region=…")
  }
  if (url.protocol !== "s3:") throw new Error("expected an s3:// URL")
  const bucket = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ""))
  if (url.hostname === "" || bucket === "" || bucket.includes("/")) {
    throw new Error("expected s3://key:secret@host[:port]/bucket: a host and one bucket name")
  }
  const flag = (name: string) => {
    const value = url.searchParams.get(name)
    if (value === null || value === "") return undefined
    if (value !== "true" && value !== "false") throw new Error(`expected ${name}=true or ${name}=false`)
    return value === "true"
  }
  const tls = flag("tls") ?? true
  return {
    endpoint: `${tls ? "https" : "http"}://${url.host}`,
    bucket,
    region: url.searchParams.get("region") || "us-east-1",
    pathStyle: flag("path_style") ?? false,
    accessKeyId: url.username === "" ? undefined : decodeURIComponent(url.username),
    secretAccessKey: url.password === "" ? undefined : decodeURIComponent(url.password),
    prefix: url.searchParams.get("prefix") ?? ""
  }
}

const isMissing = (error: unknown) => {
  const name = (error as { readonly name?: unknown } | null)?.name
  return name === "NoSuchKey" || name === "NotFound" || name === "NoSuchUpload"
}

// Some S3-compatible servers (s3rver) cannot abort a multipart upload; the bucket's lifecycle
// rule for incomplete multipart uploads then cleans up (docs/configuration.md).
const isUnsupported = (error: unknown) => {
  const name = (error as { readonly name?: unknown } | null)?.name
  return name === "MethodNotAllowed" || name === "NotImplemented"
}

/** The bucket as a `BlobStore`, with a client of its own for the layer's lifetime. */
export const make = (settings: S3Settings): Effect.Effect<BlobStoreShape, never, import("effect").Scope.Scope> =>
  Effect.gen(function* () {
    // The SDK is loaded when a bucket is configured, not at every start (docs/performance.md).
    const [
      {
        AbortMultipartUploadCommand,
        CompleteMultipartUploadCommand,
        CreateMultipartUploadCommand,
        DeleteObjectCommand,
        GetObjectCommand,
        HeadObjectCommand,
        PutObjectCommand,
        S3Client,
        UploadPartCommand
      },
      { Upload },
      { getSignedUrl }
    ] = yield* Effect.promise(() =>
      Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/lib-storage"), import("@aws-sdk/s3-request-presigner")])
    )
    const client = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new S3Client({
            endpoint: settings.endpoint,
            region: settings.region,
            forcePathStyle: settings.pathStyle,
            requestChecksumCalculation: "WHEN_REQUIRED",
            responseChecksumValidation: "WHEN_REQUIRED",
            ...(settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
              ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
              : {})
          })
      ),
      (s3) => Effect.sync(() => s3.destroy())
    )
    const Bucket = settings.bucket
    const keyOf = (key: string) => settings.prefix + key
    const attempt = <A>(key: string, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (cause) => new BlobError({ key, cause }) })

    /**
     * An Effect stream as a Node readable for a request body. The stream's own failure is kept
     * to be rethrown, and aborts the request (`signal`): a body cut short must never leave the
     * request waiting for bytes that will not come.
     */
    const readableOf = <E>(body: Stream.Stream<Uint8Array, E>) =>
      Effect.gen(function* () {
        const failure: { error?: E } = {}
        const controller = new AbortController()
        const web = yield* Stream.toReadableStreamEffect(
          body.pipe(
            Stream.tapError((error) =>
              Effect.sync(() => {
                failure.error = error
                controller.abort()
              })
            )
          )
        )
        const readable = Readable.fromWeb(web as import("node:stream/web").ReadableStream<Uint8Array>)
        // The failure is answered from `failure`; the readable's own error event has nobody else to tell.
        readable.on("error", () => undefined)
        return { readable, failure, signal: controller.signal }
      })

    const objectBody = (key: string, range?: string) =>
      attempt(key, async () => {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key), ...(range === undefined ? {} : { Range: range }) }))
        return answer.Body as Readable
      })

    const store: BlobStoreShape = {
      put: (key, bytes) => attempt(key, () => client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: bytes }))).pipe(Effect.asVoid),
      get: (key) =>
        attempt(key, async () => {
          const answer = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }))
          return new Uint8Array(await answer.Body!.transformToByteArray())
        }),
      write: (key, body) =>
        Effect.gen(function* () {
          let written = 0
          const { readable, failure, signal } = yield* readableOf(
            Stream.tap(body, (chunk) =>
              Effect.sync(() => {
                written += chunk.length
              })
            )
          )
          const upload = yield* Effect.tryPromise({
            try: () => {
              const sending = new Upload({ client, params: { Bucket, Key: keyOf(key), Body: readable }, partSize: 16 * 1024 * 1024 })
              signal.addEventListener("abort", () => void sending.abort().catch(() => undefined))
              return sending.done()
            },
            catch: (cause) => cause
          }).pipe(Effect.result)
          if (upload._tag === "Failure") {
            if (failure.error !== undefined) return yield* Effect.fail(failure.error)
            return yield* new BlobError({ key, cause: upload.failure })
          }
          return written
        }),
      read: (key, range) =>
        Stream.unwrap(
          Effect.map(objectBody(key, range === undefined ? undefined : `bytes=${range.start}-${range.end}`), (readable) =>
            Stream.fromAsyncIterable<Uint8Array, BlobError>(readable, (cause) => new BlobError({ key, cause }))
          )
        ),
      readRange: (key, start, length) =>
        attempt(key, async () => {
          if (length <= 0) return new Uint8Array()
          const answer = await client.send(
            new GetObjectCommand({ Bucket, Key: keyOf(key), Range: `bytes=${start}-${start + length - 1}` })
          )
          return new Uint8Array(await answer.Body!.transformToByteArray())
        }),
      size: (key) =>
        attempt(key, async () => {
          const answer = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }))
          return answer.ContentLength ?? 0
        }),
      remove: (key) =>
        attempt(key, async () => {
          try {
            await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }))
          } catch (error) {
            if (!isMissing(error)) throw error
          }
        }),
      startParts: (key) =>
        attempt(key, async () => {
          const answer = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: keyOf(key) }))
          if (answer.UploadId === undefined) throw new Error("the bucket answered no UploadId")
          return answer.UploadId
        }),
      writePart: (key, reference, number, length, body) =>
        Effect.gen(function* () {
          let received = 0
          // A body longer or shorter than the part fails the stream, which aborts the request to
          // the bucket: it never stores a part of the wrong length.
          const exact = Stream.concat(
            Stream.mapEffect(body, (chunk) => {
              received += chunk.length
              return received > length
                ? Effect.fail(new PartLengthMismatch({ expected: length, received }))
                : Effect.succeed(chunk)
            }),
            Stream.suspend(() =>
              received === length ? Stream.empty : Stream.fail(new PartLengthMismatch({ expected: length, received }))
            )
          )
          const { readable, failure, signal } = yield* readableOf(exact)
          const answer = yield* Effect.tryPromise({
            try: () =>
              client.send(
                new UploadPartCommand({
                  Bucket,
                  Key: keyOf(key),
                  UploadId: reference,
                  PartNumber: number + 1,
                  ContentLength: length,
                  Body: readable
                }),
                { abortSignal: signal }
              ),
            catch: (cause) => cause
          }).pipe(Effect.result)
          if (answer._tag === "Failure") {
            readable.destroy()
            if (failure.error !== undefined) return yield* Effect.fail(failure.error)
            return yield* new BlobError({ key, cause: answer.failure })
          }
          return { number, tag: answer.success.ETag ?? "" }
        }),
      joinParts: (key, reference, parts) =>
        attempt(key, async () => {
          await client.send(
            new CompleteMultipartUploadCommand({
              Bucket,
              Key: keyOf(key),
              UploadId: reference,
              MultipartUpload: {
                Parts: [...parts].sort((a, b) => a.number - b.number).map((part) => ({ PartNumber: part.number + 1, ETag: part.tag }))
              }
            })
          )
          const head = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }))
          return head.ContentLength ?? 0
        }),
      abortParts: (key, reference) =>
        attempt(key, async () => {
          try {
            await client.send(new AbortMultipartUploadCommand({ Bucket, Key: keyOf(key), UploadId: reference }))
          } catch (error) {
            if (!isMissing(error) && !isUnsupported(error)) throw error
          }
        }),
      signedUrl: (key, mime, expiresAt) =>
        Effect.gen(function* () {
          const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
          const expiresIn = Math.max(1, Math.min(7 * 24 * 3600, Math.floor((expiresAt - now) / 1000)))
          return yield* attempt(key, () =>
            getSignedUrl(client, new GetObjectCommand({ Bucket, Key: keyOf(key), ResponseContentType: mime }), { expiresIn })
          )
        })
    }
    return store
  })

/** The bucket as the `BlobStore`. */
export const layer = (settings: S3Settings): Layer.Layer<BlobStore> => Layer.effect(BlobStore)(make(settings))
