/**
 * The server's address as the client uses it.
 *
 * @internal
 */

/**
 * The server's root: an absolute http(s) address without a trailing slash or `/v1` (the
 * contract's paths carry `/v1`, and the spec writes base addresses ending in it).
 * Throws a `TypeError` for anything else.
 */
export const normalizeBaseUrl = (baseUrl: string | URL): string => {
  const url = new URL(String(baseUrl))
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`baseUrl must be an http or https address, got ${url.protocol}`)
  }
  return url.href.replace(/\/+$/, "").replace(/\/v1$/, "")
}
