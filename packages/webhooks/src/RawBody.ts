/**
 * A request body exactly as it arrived on the wire: the text, or its bytes.
 *
 * The signature covers these bytes, so pass the body before any JSON parsing:
 * `await request.text()` or `await request.arrayBuffer()` in a fetch handler, the collected
 * `Buffer` in node:http, `express.raw({ type: "application/json" })` in Express.
 * A `Buffer` is a `Uint8Array`, so it is accepted as is.
 *
 * @example
 * ```ts
 * const body: RawBody = await request.arrayBuffer() // not await request.json()
 * ```
 */
export type RawBody = string | Uint8Array | ArrayBuffer
