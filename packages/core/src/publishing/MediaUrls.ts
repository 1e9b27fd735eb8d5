/**
 * Signed, expiring addresses of media bytes. Meta and TikTok fetch media from a public address
 * while publishing; the server answers `GET {publicBaseUrl}/media-files/{workspace}/{media}`
 * only with a valid signature (HMAC-SHA256 under the server secret) before the expiry.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** The path under which the server serves media bytes. */
export const mediaFilesPath = "/media-files"

const mediaKey = (secret: string) => createHmac("sha256", secret).update("postwire/media-url/v1").digest()

const signature = (secret: string, workspaceId: string, mediaId: string, expiresAtSec: number): string =>
  createHmac("sha256", mediaKey(secret)).update(`${workspaceId}/${mediaId}/${expiresAtSec}`).digest("base64url")

/**
 * The public address of a media item's bytes, valid until `expiresAt` (epoch milliseconds,
 * rounded up to the second).
 *
 * @example
 * ```ts
 * signMediaUrl({ publicBaseUrl: "https://postwire.example", secret }, { workspaceId: "ws_1", id: "med_1" }, expiresAt)
 * // "https://postwire.example/media-files/ws_1/med_1?exp=1767225600&sig=…"
 * ```
 */
export const signMediaUrl = (
  settings: { readonly publicBaseUrl: string; readonly secret: string },
  media: { readonly workspaceId: string; readonly id: string },
  expiresAt: number
): string => {
  const exp = Math.ceil(expiresAt / 1000)
  const sig = signature(settings.secret, media.workspaceId, media.id, exp)
  const base = settings.publicBaseUrl.replace(/\/$/, "")
  return `${base}${mediaFilesPath}/${encodeURIComponent(media.workspaceId)}/${encodeURIComponent(media.id)}?exp=${exp}&sig=${sig}`
}

/** Whether a media address's `exp` and `sig` are genuine and not expired at `now` (epoch ms). */
export const verifyMediaUrl = (
  secret: string,
  workspaceId: string,
  mediaId: string,
  exp: string | undefined,
  sig: string | undefined,
  now: number
): boolean => {
  if (exp === undefined || sig === undefined || !/^\d{1,12}$/.test(exp)) return false
  const expiresAtSec = Number(exp)
  if (expiresAtSec * 1000 < now) return false
  const expected = Buffer.from(signature(secret, workspaceId, mediaId, expiresAtSec))
  const given = Buffer.from(sig)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
