/**
 * Speaking LinkedIn's versioned REST APIs: every call carries `LinkedIn-Version` (the
 * deployment's setting, `POSTWIRE_LINKEDIN_VERSION`) and `X-Restli-Protocol-Version: 2.0.0`
 * ("All APIs require the request header LinkedIn-Version: {Version in YYYYMM format}. All APIs
 * require the request header X-Restli-Protocol-Version: 2.0.0",
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api),
 * URNs are encoded in paths and queries (Rest.li 2.0), and LinkedIn's error body
 * `{"status", "serviceErrorCode", "code", "message"}`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling) becomes
 * the service's codes.
 *
 * @internal
 */
import type { PlatformFailure } from "@postwire/core"
import { ErrorDetail } from "@postwire/domain"
import { HttpClientRequest } from "effect/http"
import { failure, numberField, stringField, type WireResponse } from "../internal/Wire.ts"

/** What a REST call needs of the settings. */
export interface RestSettings {
  /** `https://api.linkedin.com` (the `/rest` and `/v2` paths are added). */
  readonly apiUrl: string
  /** The `LinkedIn-Version` header: `YYYYMM` (or `YYYYMM.RR`). */
  readonly version: string
}

/** The wire word of LinkedIn. */
export const platform = "professional"

/** The setting that names the API version. */
export const versionSetting = "POSTWIRE_LINKEDIN_VERSION"

/** A request to a versioned REST resource (`/rest/posts`, `/rest/images?action=initializeUpload`). */
export const rest = (
  settings: RestSettings,
  method: "GET" | "POST" | "DELETE",
  path: string,
  token: string,
  options: { readonly query?: Readonly<Record<string, string>>; readonly body?: unknown } = {}
): HttpClientRequest.HttpClientRequest => {
  const url = `${settings.apiUrl.replace(/\/+$/, "")}/rest/${path.replace(/^\/+/, "")}`
  const base = method === "GET" ? HttpClientRequest.get(url) : method === "POST" ? HttpClientRequest.post(url) : HttpClientRequest.delete(url)
  return base.pipe(
    HttpClientRequest.bearerToken(token),
    HttpClientRequest.setHeaders({ "LinkedIn-Version": settings.version, "X-Restli-Protocol-Version": "2.0.0" }),
    options.query === undefined ? (r) => r : HttpClientRequest.setUrlParams(options.query),
    options.body === undefined ? (r) => r : HttpClientRequest.bodyJsonUnsafe(options.body)
  )
}

/** A URN as a path segment (Rest.li 2.0 encodes its colons). */
export const urnPath = (urn: string): string => encodeURIComponent(urn)

/** Whether an answer succeeded (2xx). */
export const ok = (response: WireResponse): boolean => response.status >= 200 && response.status < 300

/** LinkedIn's support code of an error answer: `ACCESS_DENIED:100`, `http_401:65602`. */
export const errorCode = (response: WireResponse): string => {
  const code = stringField(response.json, "code") ?? `http_${response.status}`
  const service = numberField(response.json, "serviceErrorCode")
  return service === undefined ? code : `${code}:${service}`
}

/** The next midnight UTC after `now`: when LinkedIn's daily limits start again. */
export const nextUtcMidnight = (now: number): number => {
  const day = 86_400_000
  return Math.floor(now / day) * day + day
}

/**
 * When a throttled call may be made again: the `Retry-After` header (seconds) when given, else
 * the next midnight UTC ("Rate limited requests will receive a 429 response … limits reset at
 * midnight UTC", https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits).
 */
export const retryAfter = (response: WireResponse, now: number): number => {
  const header = response.headers?.["retry-after"]
  const seconds = header === undefined ? Number.NaN : Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? now + seconds * 1000 : nextUtcMidnight(now)
}

/**
 * An error answer as a failure. 401 is an expired or revoked token (`token_expired`, refreshed
 * once by the session); 403 a missing permission or page role (`permission_missing`: only the
 * person can grant it); 429 throttling (`platform_unavailable` until the limit resets); 5xx
 * `platform_unavailable`; a version LinkedIn does not serve (426 `NONEXISTENT_VERSION`)
 * `platform_version_inactive`; any other refusal of the content `media_invalid`.
 */
export const refusal = (response: WireResponse, now: number, version?: string): PlatformFailure => {
  const platformCode = errorCode(response)
  const status = response.status
  if (status === 429) return failure("platform_unavailable", platformCode, { retryAt: retryAfter(response, now) })
  const code = stringField(response.json, "code")
  if (status === 426 || code === "NONEXISTENT_VERSION" || code === "VERSION_MISSING") {
    return failure("platform_version_inactive", platformCode, { details: { platform, version: version ?? "", settings: versionSetting } })
  }
  if (status >= 500) return failure("platform_unavailable", platformCode)
  if (status === 401) return failure("token_expired", platformCode)
  if (status === 403) return failure("permission_missing", platformCode, { details: { platform } })
  const message = stringField(response.json, "message")
  const detail = message !== undefined && /duplicate/i.test(message) ? ErrorDetail.reason("platform_refused_duplicate") : ErrorDetail.reason("platform_rejected_request")
  return failure("media_invalid", platformCode, { details: { platform, detail } })
}
