/**
 * `GET /media-files/{workspace_id}/{media_id}?exp=…&sig=…`: the bytes of a media item at the
 * signed, expiring address the publisher hands to a platform (Meta and TikTok fetch media
 * themselves). Without a valid signature, or after the expiry, the answer is a 404 that tells
 * nothing about whether the media exists. The bytes are streamed from storage; with a bucket
 * (`POSTWIRE_MEDIA_S3_URL`) the answer is a redirect to the bucket's own signed address, valid
 * until the same expiry. `{media_id}.jpg` is the item's JPEG rendition (made when a platform that
 * takes JPEG only published it), under the same signature rules.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { BlobStore, EngineConfig, MediaUrls, Renditions, Store } from "@postwire/core"
import { ErrorDetail, Ids, PostwireError } from "@postwire/domain"
import { errorResponse } from "./Failures.ts"

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
  return errorResponse(error, "en", engine.publicBaseUrl, fileHeaders)
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
    // `med_1.jpg`: the item's JPEG rendition (see `Renditions`), signed for that very id.
    const asked = Renditions.parseAddressId(mediaId)
    const media = yield* store.getMedia(Ids.unchecked("workspace", workspaceId), Ids.unchecked("media", asked.mediaId)).pipe(Effect.orDie)
    if (Option.isNone(media) || (media.value.status ?? "ready") !== "ready") return yield* notFound
    const blobKey = asked.jpeg ? Renditions.jpegKey(media.value.blobKey) : media.value.blobKey
    const mime = asked.jpeg ? "image/jpeg" : media.value.mime
    const ttlSeconds = Math.max(0, Number(exp) - Math.floor(at / 1000))
    // A bucket signs its own address: the platform fetches from the bucket, not through us.
    if (blobs.signedUrl !== undefined) {
      const signed = yield* blobs.signedUrl(blobKey, mime, Number(exp) * 1000).pipe(Effect.option)
      if (Option.isNone(signed)) return yield* notFound
      return HttpServerResponse.redirect(signed.value, { status: 302, headers: { ...fileHeaders, "cache-control": "no-store" } })
    }
    const size = yield* blobs.size(blobKey).pipe(Effect.option)
    if (Option.isNone(size)) return yield* notFound
    return HttpServerResponse.stream(blobs.read(blobKey), {
      contentType: mime,
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
