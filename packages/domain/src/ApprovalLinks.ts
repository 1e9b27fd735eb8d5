/**
 * Approval links taken out of an answer. Whoever holds a post's approval link can approve it, so
 * an agent, or any key made with `approval_links: hidden`, must never hold one: the server
 * rewrites its answers to such callers with {@link withoutApprovalLinks}, and the MCP tool server
 * does the same to everything it relays (belt and braces: it also asks the server to hide them).
 *
 * @since 0.6.0
 */

/** An approval link, absolute or not: `/approve/` and a token (base64url, 128 bits or more). */
const linkPattern = /(?:https?:\/\/[^\s"'<>\\]*)?\/approve\/[A-Za-z0-9_-]{22,}/g
const wholeLink = /^(?:https?:\/\/[^\s"'<>\\]*)?\/approve\/[A-Za-z0-9_-]{22,}$/

/** The fields that hold an approval link and nothing else (`approval.url`, an event's `approval_url`). */
const linkFields: ReadonlySet<string> = new Set(["url", "approval_url"])

/** What a link inside a longer text (a receiver's response body, a message) is replaced with. */
export const hiddenLink = "[approval link hidden]"

/**
 * Whether a text holds something that may be an approval link: answers without one are passed on
 * as they are, unparsed.
 */
export const mayHoldApprovalLink = (text: string): boolean => text.includes("/approve/")

/**
 * The value with every approval link taken out: a link-only field (`url`, `approval_url`) holding
 * one becomes `null`, and a link inside any other text is replaced with {@link hiddenLink}.
 *
 * @example
 * ```ts
 * withoutApprovalLinks({ approval: { url: "https://p.example/approve/3q2…" } }) // { approval: { url: null } }
 * ```
 */
export const withoutApprovalLinks = (value: unknown, field?: string): unknown => {
  if (typeof value === "string") {
    if (field !== undefined && linkFields.has(field) && wholeLink.test(value)) return null
    return mayHoldApprovalLink(value) ? value.replace(linkPattern, hiddenLink) : value
  }
  if (Array.isArray(value)) return value.map((item) => withoutApprovalLinks(item))
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = withoutApprovalLinks(item, key)
    return out
  }
  return value
}
