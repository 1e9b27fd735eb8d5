/**
 * Raw HTTP calls for black-box tests that assert status codes and headers exactly.
 */
import type { MovableClock } from "./MovableClock.ts"

/** A response: status, headers, and the parsed JSON body. */
export interface Reply<B = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: B
}

/** Options of a call. */
export interface CallOptions {
  readonly key?: string | undefined
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** Calls the server and parses the JSON reply. */
export const call = async (baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) })
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body }
}

/** Asserts the shared error shape and returns its `error` object. */
export const errorOf = (reply: Reply): {
  code: string
  message: string
  message_id: string
  field?: string
  target_id?: string
  retryable: boolean
  docs: string
  issues?: Array<{ code: string; field?: string; message: string; message_id: string }>
} => {
  const body = reply.body as { error?: unknown }
  if (typeof body !== "object" || body === null || Object.keys(body).length !== 1 || typeof body.error !== "object") {
    throw new Error(`expected { error: {...} }, got ${reply.status} ${JSON.stringify(reply.body)}`)
  }
  return body.error as ReturnType<typeof errorOf>
}

/**
 * Rate limits count in fixed one-minute windows of the server's clock. A test that makes several
 * requests and expects them counted in one window runs its server on a movable clock and calls
 * this first: when the current window has less than `needMs` left, the clock moves on to the
 * start of the next one, so a slow machine never splits the test's requests across two windows
 * and no test waits for a window to turn.
 */
export const inOneRateLimitWindow = (time: MovableClock, needMs = 30_000): void => {
  const left = 60_000 - (time.now() % 60_000)
  if (left < needMs) time.advance(left + 100)
}
