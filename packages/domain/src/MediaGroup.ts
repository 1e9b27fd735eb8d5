/**
 * The media endpoints of the contract, `/v1/media`: uploads (inline, form, resumable in parts),
 * URL imports, list, read and delete.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Authentication, RequiredScope } from "./Auth.ts"
import { IdempotencyHeaders } from "./Idempotency.ts"
import {
  CreateMediaRequest,
  CreateUploadRequest,
  DeletedMedia,
  ListMediaQuery,
  maxInlineUploadBytes,
  Media,
  MediaList,
  MediaUpload,
  UploadMediaForm,
  UploadPartHeaders,
  uploadPartBytes
} from "./Media.ts"
import { idParams } from "./PathParams.ts"

/** A form's file field has no schema of its own to carry a description: it is added here. */
const describeFormFile = (operation: Record<string, unknown>): Record<string, unknown> => {
  const form = (operation as Partial<OpenApi.OpenAPISpecOperation>).requestBody?.content["multipart/form-data"]
  const file = (form?.schema as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties?.file
  if (file !== undefined) {
    file.description =
      "The file, at most 10 MiB (400 `payload_too_large`); JPEG, PNG, WebP, MP4 or QuickTime, read from the bytes."
  }
  return operation
}

const uploadParams = {
  /** The media item's id, `med_…`, as `POST /v1/media/uploads` answered it. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({ description: "The media item's id, `med_…`, as `POST /v1/media/uploads` answered it. An unknown id, or one of another workspace, is 404 `not_found`." })
}

/** Media: uploads (inline, form, resumable in parts), URL imports, list, retrieval and deletion. */
export class MediaGroup extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/", {
      headers: IdempotencyHeaders,
      payload: [CreateMediaRequest, UploadMediaForm.pipe(HttpApiSchema.asMultipart({ maxFileSize: maxInlineUploadBytes }))],
      success: [Media.pipe(HttpApiSchema.status(201)), Media.pipe(HttpApiSchema.status(202))]
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Transform, describeFormFile)
      .annotate(OpenApi.Summary, "Upload media (inline, form) or import it from a URL")
      .annotate(
        OpenApi.Description,
        "With `data`, uploads an image or a video as base64, at most 10 MiB decoded; as `multipart/form-data`, the " +
          "same from a form field named `file` (`curl -F file=@photo.jpg`). The type is read from the bytes (JPEG, PNG, " +
          "WebP, MP4 or QuickTime), with its size, dimensions, duration and codec; the answer is 201 with the item `ready`. " +
          "With `url`, the file is fetched in the background from a public https address (at most 4 GiB): the answer is " +
          "202 with the item `processing`; poll `GET /v1/media/{id}` or name it in a post at once (its targets wait). " +
          "Larger files go through `POST /v1/media/uploads`. Accepts `Idempotency-Key`. Scope `posts:write`."
      ),
    HttpApiEndpoint.get("list", "/", { query: ListMediaQuery, success: MediaList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List media")
      .annotate(OpenApi.Description, "Lists the workspace's media items, newest first, in every status. Scope `posts:read`."),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Media })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a media item")
      .annotate(
        OpenApi.Description,
        "Retrieves a media item with its status: poll it after an import or a completed upload. Scope `posts:read`."
      ),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedMedia })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Delete a media item")
      .annotate(
        OpenApi.Description,
        "Deletes a media item and its bytes (an unfinished upload with its parts). Refused with 409 `invalid_state` " +
          "while a post that has not finished publishing uses it. Scope `posts:write`."
      ),
    HttpApiEndpoint.post("createUpload", "/uploads", {
      payload: CreateUploadRequest,
      success: MediaUpload.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Start a resumable upload")
      .annotate(
        OpenApi.Description,
        "Starts an upload of a file of up to 4 GiB sent in parts, and creates its media item in `processing`. Then " +
          "`PUT` each part to `upload_url` (any order, each retried alone), `GET` it to see which parts arrived (to " +
          "resume after a crash), and `POST` to `{upload_url}/complete`. An upload not completed within 24 hours " +
          "expires and is deleted. Scope `posts:write`."
      ),
    HttpApiEndpoint.get("getUpload", "/uploads/:id", { params: uploadParams, success: MediaUpload })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "See which parts of an upload arrived")
      .annotate(
        OpenApi.Description,
        "Answers the upload with `parts_received`: send the parts missing from it, then complete. Scope `posts:read`."
      ),
    HttpApiEndpoint.put("uploadPart", "/uploads/:id", {
      params: uploadParams,
      headers: UploadPartHeaders,
      payload: HttpApiSchema.StreamUint8Array({ contentType: "application/octet-stream", maxBytes: uploadPartBytes }),
      success: MediaUpload
    })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Send one part of an upload")
      .annotate(
        OpenApi.Description,
        "Stores one whole part, its bytes as the body (`application/octet-stream`) and its place in " +
          "`Content-Range: bytes start-end/size`. The body is streamed to storage, never held in memory. A part cut " +
          "short is not stored: send it again. Sending a part again replaces it. 400 `invalid_request` naming " +
          "`content-range` when the range is not one whole part; 409 `invalid_state` after completion or expiry. " +
          "Answers the upload. Scope `posts:write`."
      ),
    HttpApiEndpoint.post("completeUpload", "/uploads/:id/complete", { params: uploadParams, success: Media })
      .annotate(RequiredScope, "posts:write")
      .annotate(OpenApi.Summary, "Complete an upload")
      .annotate(
        OpenApi.Description,
        "Checks that every part arrived (409 `invalid_state` listing what is missing), joins them into the file " +
          "(streamed, in storage), reads its type, dimensions, duration and codec from the bytes, and answers the media " +
          "item `ready`. Bytes of another format make the item `failed` with `unsupported_format` (also the answer, " +
          "400). Calling it again answers the item. Scope `posts:write`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/media")
  .annotate(
    OpenApi.Description,
    "Images and videos to publish: uploaded inline or as a form (up to 10 MiB), in resumable parts (up to 4 GiB), " +
      "or imported from a URL. Each item is `processing`, `ready` or `failed`; posts may name it before it is ready."
  ) {}
