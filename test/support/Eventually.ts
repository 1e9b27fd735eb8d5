/**
 * The one way a test waits for something the server does in the background: read, check, pause,
 * read again, until the check passes. When it gives up, its error names what it waited for, the
 * last value it read and the last error a read or check threw, so a failing test says what the
 * server did instead.
 *
 * A wait never proves that something did not happen: to show an absence, wait for a positive
 * signal that the loop in question ran past the point (a round counter, a metric, an event), then
 * assert that nothing happened.
 */

/** How {@link eventually} waits. */
export interface EventuallyOptions {
  /** Pause between reads, in ms (default 50). */
  readonly intervalMs?: number
  /** Gives up after this many ms (default 60 s, below the suite's 120 s per test). */
  readonly withinMs?: number
  /** Runs before each read: e.g. moves a test server's `MovableClock` on so a schedule comes due. */
  readonly step?: () => unknown
}

const defaults = { intervalMs: 50, withinMs: 60_000 }

/** A value shown in a failure message, cut short when long. */
const show = (value: unknown): string => {
  let text: string
  try {
    text = value instanceof Error ? `${value.name}: ${value.message}` : typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))
  } catch {
    text = String(value)
  }
  return text.length > 8_000 ? `${text.slice(0, 8_000)}… (${text.length} characters)` : text
}

/**
 * Reads `read` until `done` holds for its value, and returns that value; with no `done`, until the
 * value is truthy (not `undefined`, `null`, `false`, `0` or `""`). A read or check that throws is
 * tried again; the last error is reported if time runs out.
 *
 * @example
 * const post = await eventually(() => call(url, "GET", `/v1/posts/${id}`, { key }), (reply) => reply.body.status === "published", "the post published")
 * await eventually(() => receiver.events.length === 2, "two deliveries")
 */
export function eventually<A>(read: () => A | Promise<A>, what: string, options?: EventuallyOptions): Promise<Exclude<A, undefined | null | false | 0 | "">>
export function eventually<A>(read: () => A | Promise<A>, done: (value: A) => boolean, what: string, options?: EventuallyOptions): Promise<A>
export async function eventually<A>(
  read: () => A | Promise<A>,
  doneOrWhat: ((value: A) => boolean) | string,
  whatOrOptions?: string | EventuallyOptions,
  maybeOptions?: EventuallyOptions
): Promise<A> {
  const done = typeof doneOrWhat === "string" ? (value: A) => Boolean(value) : doneOrWhat
  const what = typeof doneOrWhat === "string" ? doneOrWhat : (whatOrOptions as string)
  const options = (typeof doneOrWhat === "string" ? whatOrOptions : maybeOptions) as EventuallyOptions | undefined
  const intervalMs = options?.intervalMs ?? defaults.intervalMs
  const withinMs = options?.withinMs ?? defaults.withinMs
  const started = Date.now()
  let reads = 0
  let last: { readonly value: A } | undefined
  let lastError: unknown
  for (;;) {
    try {
      await options?.step?.()
      const value = await read()
      reads += 1
      last = { value }
      if (done(value)) return value
    } catch (error) {
      lastError = error
    }
    if (Date.now() - started > withinMs) {
      const lines = [`gave up after ${Date.now() - started} ms (${reads} reads) waiting for ${what}`]
      if (last !== undefined) lines.push(`last value: ${show(last.value)}`)
      if (lastError !== undefined) lines.push(`last error: ${show(lastError)}`)
      throw new Error(lines.join("\n"), lastError === undefined ? undefined : { cause: lastError })
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
