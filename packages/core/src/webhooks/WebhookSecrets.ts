/**
 * Endpoint signing secrets at rest. The API shows a secret once, when it is made (created or
 * rolled); from then on only the service needs it, to sign deliveries. It is stored sealed by the
 * {@link CredentialsCipher} (AES-256-GCM under a key derived from the newest master secret) and
 * bound to its endpoint (`webhook/<workspace id>/<endpoint id>`), so a copy of the database
 * without the master secret cannot sign an event a receiver would accept, and a sealed value
 * moved onto another endpoint, or into an account's credentials, does not open.
 *
 * Secrets stored before they were sealed (`whsec_…` as is) keep signing; `postwire secrets
 * reseal` seals them, as it re-seals credentials under the newest master.
 *
 * @since 0.5.0
 */
import { Option } from "effect"
import type { CredentialsCipherShape } from "../secrets/CredentialsCipher.ts"
import { secretPrefix } from "./Signature.ts"

/** The endpoint a secret belongs to. */
export interface EndpointKey {
  readonly workspaceId: string
  readonly id: string
}

/** What a sealed secret is bound to: its endpoint (never the form of an account's context). */
export const endpointContext = (endpoint: EndpointKey): string => `webhook/${endpoint.workspaceId}/${endpoint.id}`

/** Whether a stored secret was written before secrets were sealed (the `whsec_…` secret itself). */
export const isUnsealed = (stored: string): boolean => stored.startsWith(secretPrefix)

/**
 * The form of `secret` to store for `endpoint`.
 *
 * @example
 * ```ts
 * const stored = WebhookSecrets.seal(cipher, { workspaceId: "ws_1", id: "we_1" }, "whsec_…") // "pwc2.…"
 * ```
 */
export const seal = (cipher: CredentialsCipherShape, endpoint: EndpointKey, secret: string): string =>
  cipher.seal(secret, endpointContext(endpoint))

/**
 * The secret a stored value holds: opened when sealed, as is when stored before sealing; `None`
 * when no listed master secret opens it (or it was sealed for another endpoint).
 */
export const open = (cipher: CredentialsCipherShape, endpoint: EndpointKey, stored: string): Option.Option<string> =>
  isUnsealed(stored) ? Option.some(stored) : cipher.open(stored, endpointContext(endpoint))
