/**
 * Named builders for webhook store fixtures, beside the store conformance builders they reuse.
 */
import type { WebhookEndpointRecord } from "@postwire/core"
import { anId, t0 } from "../store-conformance/builders.ts"

export { anAccount, anEvent, anId, aProfile, aWorkspace, t0 } from "../store-conformance/builders.ts"

/** An active endpoint subscribed to `post.published`, registered at `t0`. */
export const anEndpoint = (
  workspaceId: string,
  overrides: Partial<WebhookEndpointRecord> = {}
): WebhookEndpointRecord => ({
  id: anId("wh"),
  workspaceId,
  url: "https://hooks.example.com/postwire",
  events: ["post.published"],
  secret: `whsec_${anId("secret")}`,
  active: true,
  disabledReason: null,
  disabledAt: null,
  lastSuccessAt: null,
  createdAt: t0,
  ...overrides
})
