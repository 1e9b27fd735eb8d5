/**
 * Named builders for webhook store fixtures, beside the store conformance builders they reuse.
 */
import type { WebhookEndpointRecord } from "@postwire/core"
import { anId, t0 } from "../store-conformance/builders.ts"
import { Ids as Id } from "@postwire/domain"

export { anAccount, anEvent, anId, aProfile, aWorkspace, t0 } from "../store-conformance/builders.ts"

/** An active endpoint subscribed to `post.published`, registered (and subscribed from) `t0`. */
export const anEndpoint = (
  workspaceId: string,
  overrides: Partial<WebhookEndpointRecord> = {}
): WebhookEndpointRecord => ({
  id: Id.unchecked("webhook", anId("wh")),
  workspaceId: Id.unchecked("workspace", workspaceId),
  url: "https://hooks.example.com/postwire",
  events: ["post.published"],
  secret: `whsec_${anId("secret")}`,
  previousSecret: null,
  previousSecretExpiresAt: null,
  active: true,
  disabledReason: null,
  disabledAt: null,
  lastSuccessAt: null,
  failingSince: null,
  subscribedFrom: overrides.createdAt ?? t0,
  createdAt: t0,
  approvalLinks: "shown",
  ...overrides
})
