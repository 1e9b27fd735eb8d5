/**
 * `GET /media-files/{workspace_id}/{media_id}?exp=…&sig=…`: the bytes of a media item at the
 * signed, expiring address the publisher hands to a platform (Meta and TikTok fetch media
 * themselves). Without a valid signature, or after the expiry, the answer is a 404 that tells
 * nothing about whether the media exists. The bytes are streamed from storage; with a bucket
 * (`POSTWIRE_MEDIA_S3_URL`) the answer is a redirect to the bucket's own signed address, valid
 * until the same expiry.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { BlobStore, EngineConfig, MediaUrls, Store } from "@postwire/core"
import { ErrorDetail, Ids, PostwireError, renderError } from "@postwire/domain"

/**
 * Bytes are what their stored type says and nothing else: a browser must not sniff an image
 * into HTML, nor run anything in it if opened directly.
 */
const fileHeaders = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox"
}

const notFound = EngineConfig.useSync((engine) => {
  const error = new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("media") } })
  return HttpServerResponse.jsonUnsafe({ error: renderError(error, "en", engine.publicBaseUrl) }, { status: 404, headers: fileHeaders })
})

const serveMedia = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const engine = yield* EngineConfig
    const store = yield* Store
    const blobs = yield* BlobStore
    const { mediaId = "", workspaceId = "" } = yield* HttpRouter.params
    const query = new URL(request.url, "http://localhost").searchParams
    const at = yield* Clock.currentTimeMillis
    const exp = query.get("exp") ?? undefined
    if (!MediaUrls.verifyMediaUrl(engine.keyring, workspaceId, mediaId, exp, query.get("sig") ?? undefined, at)) {
      return yield* notFound
    }
    const media = yield* store.getMedia(Ids.unchecked("workspace", workspaceId), Ids.unchecked("media", mediaId)).pipe(Effect.orDie)
    if (Option.isNone(media) || (media.value.status ?? "ready") !== "ready") return yield* notFound
    const ttlSeconds = Math.max(0, Number(exp) - Math.floor(at / 1000))
    // A bucket signs its own address: the platform fetches from the bucket, not through us.
    if (blobs.signedUrl !== undefined) {
      const signed = yield* blobs.signedUrl(media.value.blobKey, media.value.mime, Number(exp) * 1000).pipe(Effect.option)
      if (Option.isNone(signed)) return yield* notFound
      return HttpServerResponse.redirect(signed.value, { status: 302, headers: { ...fileHeaders, "cache-control": "no-store" } })
    }
    const size = yield* blobs.size(media.value.blobKey).pipe(Effect.option)
    if (Option.isNone(size)) return yield* notFound
    return HttpServerResponse.stream(blobs.read(media.value.blobKey), {
      contentType: media.value.mime,
      contentLength: size.value,
      headers: {
        ...fileHeaders,
        "cache-control": `private, max-age=${ttlSeconds}`,
        "content-disposition": "inline"
      }
    })
  }).pipe(Effect.withSpan("media.serveFile"))

/** The route serving media bytes at signed addresses. */
export const MediaFilesRoute = HttpRouter.add("GET", `${MediaUrls.mediaFilesPath}/:workspaceId/:mediaId`, serveMedia)
