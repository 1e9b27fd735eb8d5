/**
 * The `Idempotency-Key` of a mutating tool call, derived from the call itself: an agent that
 * sends the same call again (after a timeout, a crash, a lost answer) sends the same key, and
 * the API answers with the first result instead of acting twice.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  ) ?? "null"

/**
 * The key of a call: `mcp_` and a SHA-256 of the tool name and its canonical arguments. The API
 * scopes keys to the workspace and the API key, so two callers never share one.
 *
 * @example
 * ```ts
 * import { IdempotencyKey } from "@postwire/mcp"
 *
 * IdempotencyKey.derive("cancel_post", { id: "post_01JD0000000000000000000000" }) ===
 *   IdempotencyKey.derive("cancel_post", { id: "post_01JD0000000000000000000000" }) // true
 * ```
 *
 * @since 0.1.0
 */
export const derive = (tool: string, args: unknown): string =>
  `mcp_${createHash("sha256").update(tool).update("\u0000").update(canonicalJson(args)).digest("hex").slice(0, 48)}`
