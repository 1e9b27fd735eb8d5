/**
 * How the API reference at `/docs` is set up: Scalar's viewer, served whole by this server (its
 * script is inline), with nothing loaded from another host, and a "Test Request" that sends what
 * a careful client would.
 *
 * - No fonts from Scalar's font host: the page uses the system's fonts, so it works offline and
 *   tells no third party who reads the docs. The page's Content-Security-Policy allows this
 *   server only ({@link docsHeaders}), so nothing else can load even by mistake.
 * - "Test Request" leaves out the query parameters left empty (`profile_id=&from=` would be a
 *   400 for a value the person never chose) and an `Idempotency-Key` left empty (the API refuses
 *   an empty key with a 400; a request without one runs once, as asked).
 *
 * @since 0.1.0
 */
import type { HttpApiScalar } from "effect/http-api"

/**
 * The fetch that "Test Request" calls, as browser JavaScript. It is also kept as
 * `window.postwireTryItFetch`, so that a test can call it the way the page does.
 */
export const tryItFetch = `(window.postwireTryItFetch = function (input, init) {
  var isRequest = typeof Request !== "undefined" && input instanceof Request;
  var url = new URL(isRequest ? input.url : String(input), window.location.href);
  var names = Array.from(new Set(Array.from(url.searchParams.keys())));
  names.forEach(function (name) {
    if (url.searchParams.getAll(name).every(function (value) { return value.trim() === ""; })) url.searchParams.delete(name);
  });
  var headers = new Headers((init && init.headers) || (isRequest ? input.headers : undefined));
  var key = headers.get("idempotency-key");
  if (key !== null && key.trim() === "") headers.delete("idempotency-key");
  var options = Object.assign({}, init || {}, { headers: headers });
  return window.fetch(isRequest ? new Request(url.href, input) : url.href, options);
})`

/** Scalar's settings for the reference page. */
export const scalarConfig: HttpApiScalar.ScalarConfig = {
  withDefaultFonts: false,
  customFetch: tryItFetch
}

/**
 * The reference page runs its own inline script and styles (no one else's: the OpenAPI document
 * in it is JSON-escaped), calls this server's API from "Test Request", and loads nothing from
 * any other host; no other site may frame it.
 */
export const docsHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}
