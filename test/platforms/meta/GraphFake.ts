/**
 * What Meta's Graph hosts share in the fakes: the error envelope and the access-token check.
 */
import type { FakeReply, FakeRequest } from "../fakes/FakeServer.ts"

/** A Graph error answer. */
export const graphError = (
  status: number,
  code: number,
  subcode?: number,
  extra: { readonly message?: string; readonly is_transient?: boolean } = {}
): FakeReply => ({
  status,
  json: {
    error: {
      message: extra.message ?? `Graph error ${code}`,
      type: code === 190 ? "OAuthException" : "GraphMethodException",
      code,
      ...(subcode === undefined ? {} : { error_subcode: subcode }),
      is_transient: extra.is_transient ?? false,
      error_user_title: "",
      error_user_msg: "",
      fbtrace_id: "AbCdEfGhIjK"
    }
  }
})

/** Meta's answer to an expired or invalidated token. */
export const expiredToken: FakeReply = graphError(400, 190, 463, {
  message: "Error validating access token: Session has expired."
})

/** The access token a request carries (query, form, or `Authorization: OAuth`). */
export const tokenOf = (request: FakeRequest): string | undefined =>
  request.params.access_token ?? request.headers.authorization?.replace(/^OAuth /, "")

/** The path after the version prefix (`/v23.0/123/media` → `["123", "media"]`). */
export const segments = (request: FakeRequest, version: string): Array<string> | undefined => {
  const parts = request.path.split("/").filter((p) => p !== "")
  return parts[0] === version ? parts.slice(1) : undefined
}
