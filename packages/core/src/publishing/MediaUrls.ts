/**
 * Signed, expiring addresses of media bytes. Meta and TikTok fetch media from a public address
 * while publishing; the server answers `GET {publicBaseUrl}/media-files/{workspace}/{media}`
 * only with a valid signature (HMAC-SHA256 under a key derived from the server's newest master
 * secret; any listed master verifies) before the expiry.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"
import * as Keyring from "../secrets/Keyring.ts"

/** The path under which the server serves media bytes. */
export const mediaFilesPath = "/media-files"

const signed = (workspaceId: string, mediaId: string, expiresAtSec: number) => `${workspaceId}/${mediaId}/${expiresAtSec}`

/** How 0.1 signed addresses (still accepted until they expire, never made). */
const legacySignature = (data: string) => (master: string) =>
  createHmac("sha256", createHmac("sha256", master).update("postwire/media-url/v1").digest()).update(data).digest()

/**
 * The public address of a media item's bytes, valid until `expiresAt` (epoch milliseconds,
 * rounded up to the second).
 *
 * @example
 * ```ts
 * signMediaUrl({ publicBaseUrl: "https://postwire.example", keyring }, { workspaceId: "ws_1", id: "med_1" }, expiresAt)
 * // "https://postwire.example/media-files/ws_1/med_1?exp=1767225600&sig=…"
 * ```
 */
export const signMediaUrl = (
  settings: { readonly publicBaseUrl: string; readonly keyring: Keyring.Keyring },
  media: { readonly workspaceId: string; readonly id: string },
  expiresAt: number
): string => {
  const exp = Math.ceil(expiresAt / 1000)
  const sig = Keyring.sign(settings.keyring, "media-url", signed(media.workspaceId, media.id, exp)).toString("base64url")
  const base = settings.publicBaseUrl.replace(/\/$/, "")
  return `${base}${mediaFilesPath}/${encodeURIComponent(media.workspaceId)}/${encodeURIComponent(media.id)}?exp=${exp}&sig=${sig}`
}

/** Whether a media address's `exp` and `sig` are genuine and not expired at `now` (epoch ms). */
export const verifyMediaUrl = (
  keyring: Keyring.Keyring,
  workspaceId: string,
  mediaId: string,
  exp: string | undefined,
  sig: string | undefined,
  now: number
): boolean => {
  if (exp === undefined || sig === undefined || !/^\d{1,12}$/.test(exp)) return false
  const expiresAtSec = Number(exp)
  if (expiresAtSec * 1000 < now) return false
  if (!/^[A-Za-z0-9_-]{43}$/.test(sig)) return false
  const data = signed(workspaceId, mediaId, expiresAtSec)
  return Keyring.verify(keyring, "media-url", data, Buffer.from(sig, "base64url"), { legacy: legacySignature(data) })
}
