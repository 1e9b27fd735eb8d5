/**
 * What neither log format ever writes, whatever a line was given: the code logs no caption,
 * address, token or credential on purpose (docs/security.md, Logs), and this is the
 * net under it for a value that slips into a message, an annotation or a cause.
 *
 * - values of fields whose name says what they hold (`caption`, `subject`, `email`, `to`,
 *   `token`, `secret`, `key`, `password`, `authorization`, `credentials`, …) are `[redacted]`;
 * - in any text: e-mail addresses, Postwire's own secrets (`svc_live_…`, `svc_test_…`,
 *   `pwadm_…`, `whsec_…`), bearer credentials, and the tokens of approval and connect
 *   addresses (`/approve/{token}`) are replaced.
 *
 * @since 0.5.0
 */

/** Field names whose values are never written (compared in lower case, `-` as `_`). */
const secretFields = new Set([
  "caption",
  "subject",
  "email",
  "to",
  "from",
  "recipient",
  "token",
  "access_token",
  "refresh_token",
  "secret",
  "key",
  "api_key",
  "password",
  "authorization",
  "cookie",
  "credentials",
  "client_secret"
])

const isSecretField = (name: string) => secretFields.has(name.toLowerCase().replaceAll("-", "_"))

const patterns: ReadonlyArray<readonly [RegExp, string]> = [
  [/[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/g, "[email]"],
  [/\b(svc_(?:live|test)_|pwadm_|whsec_)[A-Za-z0-9_-]+/g, "$1[redacted]"],
  [/\b(bearer|basic)\s+[^\s"',;]+/gi, "$1 [redacted]"],
  [/\/(approve|connect|v1\/approvals)\/(?!\{token\}|callback\/|sandbox\/|deauthorize\/)[A-Za-z0-9_-]{8,}/g, "/$1/{token}"]
]

/** `text` with every e-mail address, Postwire secret, bearer credential and link token replaced. */
export const redactText = (text: string): string => {
  let out = text
  for (const [pattern, replacement] of patterns) out = out.replace(pattern, replacement)
  return out
}

/** `value` with secret fields replaced and every string redacted, recursively (cycles stop at `[cycle]`). */
export const redactValue = (value: unknown, seen: WeakSet<object> = new WeakSet()): unknown => {
  if (typeof value === "string") return redactText(value)
  if (typeof value !== "object" || value === null || value instanceof Date) return value
  if (value instanceof Error) return redactText(`${value.name}: ${value.message}`)
  if (seen.has(value)) return "[cycle]"
  seen.add(value)
  if (Array.isArray(value)) return value.map((item) => redactValue(item, seen))
  const out: Record<string, unknown> = {}
  for (const [name, item] of Object.entries(value)) out[name] = isSecretField(name) && item != null ? "[redacted]" : redactValue(item, seen)
  return out
}

/** The annotations of a line, redacted like any value. */
export const redactFields = (fields: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  redactValue(fields) as Record<string, unknown>
