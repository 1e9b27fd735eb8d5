/**
 * Approval links inside stored events. `post.awaiting_approval` carries the post's approval link
 * (`approval_url`), and whoever holds a link can decide the post: the outbox keeps it sealed by
 * the {@link CredentialsCipher} (AES-256-GCM under a key derived from the newest master secret),
 * bound to its approval (`approval-url/<workspace id>/<approval id>`), and opens it only when an
 * event is delivered or read through the events API. A copy of the database without the master
 * secret holds no working approval link.
 *
 * Events stored before links were sealed (`approval_url` as the link itself) are shown as they
 * are; a sealed link no listed master opens is shown as `null`.
 *
 * @since 0.6.0
 */
import { Option } from "effect"
import type { CredentialsCipherShape } from "./CredentialsCipher.ts"
import type { OutboxEvent } from "../store/Outbox.ts"

/** The field of an event's data that holds an approval link. */
export const approvalUrlField = "approval_url"

const sealedPrefix = "pwc"

/** What a sealed link is bound to: its approval, so a sealed value moved elsewhere does not open. */
const linkContext = (workspaceId: string, approvalId: string): string => `approval-url/${workspaceId}/${approvalId}`

/**
 * The stored form of an approval link: sealed for its approval.
 *
 * @example
 * ```ts
 * EventSecrets.sealLink(cipher, "ws_1", "apr_1", "https://postwire.example/approve/…") // "pwc2.…"
 * ```
 */
export const sealLink = (cipher: CredentialsCipherShape, workspaceId: string, approvalId: string, url: string): string =>
  cipher.seal(url, linkContext(workspaceId, approvalId))

/** The event without its approval link (`approval_url: null`), for whoever may not see one. */
export const withoutLink = (event: OutboxEvent): OutboxEvent =>
  typeof event.data[approvalUrlField] === "string" ? { ...event, data: { ...event.data, [approvalUrlField]: null } } : event

/**
 * The event as it is delivered and listed: its approval link opened (a link stored before
 * sealing is kept as it is; one that no listed master opens becomes `null`).
 */
export const openEvent = (cipher: CredentialsCipherShape, event: OutboxEvent): OutboxEvent => {
  const stored = event.data[approvalUrlField]
  const approvalId = event.data.approval_id
  if (typeof stored !== "string" || !stored.startsWith(sealedPrefix)) return event
  const opened =
    typeof approvalId === "string" ? cipher.open(stored, linkContext(event.workspaceId, approvalId)) : Option.none<string>()
  return { ...event, data: { ...event.data, [approvalUrlField]: Option.getOrNull(opened) } }
}
