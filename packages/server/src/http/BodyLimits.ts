/**
 * How large a request body each address accepts (docs/decisions.md, "Request body limits"):
 * `POST /v1/media` the inline media limit (10 MiB decoded, so about 14 MiB of base64 JSON),
 * `POST /v1/posts/batch` eight times the JSON limit, a part of a resumable upload
 * (`PUT /v1/media/uploads/{id}`) the part size (16 MiB), and any other body the JSON limit (1 MiB
 * by default). A larger body is answered 413 `request_too_large` in the
 * shared shape, and the connection is closed rather than read to its end.
 *
 * @since 0.1.0
 */
import { Media } from "@postwire/domain"
import { type BodyLimitSettings, defaultBodyLimits } from "../config/ServerConfig.ts"

/** The address of one upload, whose only body is a part (`PUT`). */
const uploadPath = /^\/v1\/media\/uploads\/[^/]+$/

/** The largest body accepted on `path` in bytes, or `undefined` for a route that bounds its own. */
export const limitFor = (path: string, limits: BodyLimitSettings = defaultBodyLimits): number | undefined => {
  if (uploadPath.test(path)) return Media.uploadPartBytes
  if (path === "/v1/media") return limits.media
  if (path === "/v1/posts/batch") return limits.json * 8
  return limits.json
}
