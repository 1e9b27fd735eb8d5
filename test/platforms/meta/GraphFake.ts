/**
 * What Meta's Graph hosts share in the fakes: the error envelope and the access-token check.
 */
import type { FakeReply, FakeRequest } from "../fakes/FakeServer.ts"

/** A Graph error answer. */
export const graphError = (
  status: number,
  code: number,
  subcode?: number,
  extra: {
    readonly message?: string
    readonly is_transient?: boolean
    readonly type?: string
    readonly userTitle?: string
    readonly userMessage?: string
  } = {}
): FakeReply => ({
  status,
  json: {
    // The envelope of Meta's Graph errors, as the Instagram error-codes page shows it
    // (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes).
    error: {
      message: extra.message ?? `Graph error ${code}`,
      type: extra.type ?? (code === 190 ? "OAuthException" : "GraphMethodException"),
      code,
      ...(subcode === undefined ? {} : { error_subcode: subcode }),
      is_transient: extra.is_transient ?? false,
      error_user_title: extra.userTitle ?? "",
      error_user_msg: extra.userMessage ?? "",
      fbtrace_id: "AbCdEfGhIjK"
    }
  }
})

/**
 * Meta's answer once a Business Use Case rate limit is reached
 * (https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits): the
 * code of the use case (`80001` Page calls with a Page token, `80002` Instagram, …), the message
 * the Graph reference pages list for it, and the `X-Business-Use-Case-Usage` header whose
 * `estimated_time_to_regain_access` is in minutes (left out with `minutes: null`).
 */
export const bucThrottle = (
  code: 80001 | 80002 | 80006,
  options: { readonly minutes?: number | null; readonly objectId?: string } = {}
): FakeReply => {
  const what = code === 80001 ? "Page account" : code === 80002 ? "Instagram account" : "Messenger account"
  const type = code === 80001 ? "pages" : code === 80002 ? "instagram" : "messenger"
  const minutes = options.minutes === undefined ? 19 : options.minutes
  return {
    status: 400,
    json: {
      error: {
        message: `(#${code}) There have been too many calls to this ${what}. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.`,
        type: "OAuthException",
        code,
        fbtrace_id: "AmFGcW_3hwDB7qFbl_QdebZ"
      }
    },
    headers:
      minutes === null
        ? {}
        : {
            "x-business-use-case-usage": JSON.stringify({
              [options.objectId ?? "17841400123456789"]: [
                { type, call_count: 100, total_cputime: 25, total_time: 25, estimated_time_to_regain_access: minutes }
              ]
            })
          }
  }
}

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
