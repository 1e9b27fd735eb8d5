/**
 * The client's options, checked once when the client is made, so a mistake is reported where it
 * was made (with the option's name) instead of as a failed request later.
 *
 * @internal
 */
import { Redacted } from "effect"
import { normalizeBaseUrl } from "./baseUrl.ts"

/** What the checks read; the public option types are stricter, JavaScript callers are not. */
interface RawOptions {
  readonly apiKey?: unknown
  readonly baseUrl?: unknown
  readonly maxRetries?: unknown
  readonly userAgent?: unknown
  readonly locale?: unknown
  readonly fetch?: unknown
}

const describe = (value: unknown): string => {
  if (value === null) return "null"
  if (typeof value === "string") return value === "" ? "an empty string" : JSON.stringify(value)
  if (typeof value === "number") return String(value)
  return `a value of type ${typeof value}`
}

/** The server a client talks to when `baseUrl` is not given: `POSTWIRE_BASE_URL`, else `postwire serve`'s default address. */
export const defaultBaseUrl = (): string => {
  const fromEnv = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.POSTWIRE_BASE_URL
  return fromEnv === undefined || fromEnv.trim() === "" ? "http://localhost:8080" : fromEnv.trim()
}

/** Visible ASCII only: a header value that carries a key must not hold spaces or line breaks. */
const headerSafe = /^[\x21-\x7e]+$/

/**
 * Throws a `TypeError` naming the first option that is wrong; returns the server's root address.
 */
export const checkOptions = (options: unknown): string => {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`options must be an object such as { apiKey, baseUrl }, got ${describe(options)}`)
  }
  const given = options as RawOptions

  const fromEnv = given.baseUrl === undefined
  const baseUrl = fromEnv ? defaultBaseUrl() : given.baseUrl
  if (typeof baseUrl !== "string" && !(baseUrl instanceof URL)) {
    throw new TypeError(`baseUrl must be the server's http or https address, got ${describe(baseUrl)}`)
  }
  let root: string
  try {
    root = normalizeBaseUrl(baseUrl)
  } catch (error) {
    const problem =
      error instanceof TypeError && error.message.startsWith("baseUrl")
        ? error.message
        : `baseUrl must be an absolute http or https address, got ${describe(String(baseUrl))}`
    // A default taken from the environment is named as such: that is where the fix goes.
    throw new TypeError(fromEnv ? problem.replace(/^baseUrl/, "POSTWIRE_BASE_URL (the default baseUrl)") : problem)
  }

  const { apiKey } = given
  if (apiKey !== undefined) {
    const key = Redacted.isRedacted(apiKey) ? Redacted.value(apiKey) : apiKey
    if (typeof key !== "string" || !headerSafe.test(key)) {
      // Never echo a key: only what kind of mistake it is.
      const got =
        typeof key !== "string"
          ? describe(key)
          : key === ""
            ? "an empty string"
            : "one with spaces, line breaks or non-ASCII characters"
      throw new TypeError(
        `apiKey must be an API key (svc_live_… or svc_test_…) of visible ASCII characters, got ${got}`
      )
    }
  }

  const { maxRetries } = given
  const wholeNumber = typeof maxRetries === "number" && Number.isInteger(maxRetries) && maxRetries >= 0
  if (maxRetries !== undefined && !wholeNumber) {
    throw new TypeError(`maxRetries must be a whole number of 0 or more, got ${describe(maxRetries)}`)
  }

  const { userAgent } = given
  if (userAgent !== undefined && !(typeof userAgent === "string" && /^[\x20-\x7e]+$/.test(userAgent))) {
    throw new TypeError(`userAgent must be a non-empty line of visible ASCII, got ${describe(userAgent)}`)
  }

  const { locale } = given
  if (locale !== undefined && locale !== "en" && locale !== "id") {
    throw new TypeError(`locale must be "en" or "id", got ${describe(locale)}`)
  }

  const { fetch } = given
  if (fetch !== undefined && typeof fetch !== "function") {
    throw new TypeError(`fetch must be a function like globalThis.fetch, got ${describe(fetch)}`)
  }
  return root
}
