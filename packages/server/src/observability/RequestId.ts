/**
 * The request id every response carries in `X-Request-Id`, and every error body in
 * `error.request_id`, so that a caller's report, the error and the log line meet.
 *
 * A caller's own id is kept when it is sane (1 to 128 characters of `A-Z a-z 0-9 . _ : -`), so
 * a proxy's or a client's id runs through; otherwise the server makes one, `req_` and 26
 * random characters.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import { Entropy } from "@postwire/core"

/** A caller's id that may be kept as it is. */
const sane = /^[A-Za-z0-9._:-]{1,128}$/

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

/** A new request id: `req_` and 26 random characters. */
export const make = (): string => {
  const bytes = Entropy.bytes(26)
  let id = "req_"
  for (const byte of bytes) id += alphabet[byte & 31]
  return id
}

/** The id of a request: the caller's `X-Request-Id` when sane, else a new one. */
export const fromHeader = (header: string | undefined): string =>
  header !== undefined && sane.test(header) ? header : make()

/** The id of the request being served. */
export class CurrentRequestId extends Context.Service<CurrentRequestId, string>()("postwire/CurrentRequestId") {}
