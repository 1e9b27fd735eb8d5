/**
 * Approval link tokens. A token is the HMAC of the approval id under a key derived from the
 * server's newest master secret (256 bits): only its SHA-256 is stored, yet the server can show
 * the link again in the post detail by finding the listed master whose token has that hash.
 * Without the master secrets, a copy of the database reveals no working link.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"
import { hashSecret } from "../ids/Ids.ts"
import * as Keyring from "./Keyring.ts"

const message = (approvalId: string) => `approval:${approvalId}`

/** The token of a new approval, under the newest master. */
export const approvalToken = (keyring: Keyring.Keyring, approvalId: string): string =>
  Keyring.sign(keyring, "approval-token", message(approvalId)).toString("base64url")

/**
 * The token of an existing approval: the one, under any listed master, whose hash is stored.
 * Tokens issued by 0.1 (HMAC under the master itself) are found too. When no listed master made
 * it (its master was removed), the newest master's token, which does not open the page.
 */
export const approvalTokenOf = (keyring: Keyring.Keyring, approval: { readonly id: string; readonly tokenHash: string }): string => {
  // Every post of a listed page shows its link: found once per approval, not per request.
  let found = foundTokens.get(keyring)
  if (found === undefined) {
    found = new Map()
    foundTokens.set(keyring, found)
  }
  const cacheKey = `${approval.id} ${approval.tokenHash}`
  let token = found.get(cacheKey)
  if (token === undefined) {
    token = findToken(keyring, approval)
    if (found.size >= maxFoundTokens) found.delete(found.keys().next().value as string)
    found.set(cacheKey, token)
  }
  return token
}

const maxFoundTokens = 4096
const foundTokens = new WeakMap<Keyring.Keyring, Map<string, string>>()

const findToken = (keyring: Keyring.Keyring, approval: { readonly id: string; readonly tokenHash: string }): string => {
  for (const master of keyring.masters) {
    const current = Keyring.signWith(master, "approval-token", message(approval.id)).toString("base64url")
    if (approvalTokenHash(current) === approval.tokenHash) return current
    const legacy = createHmac("sha256", master.legacy).update(message(approval.id)).digest("base64url")
    if (approvalTokenHash(legacy) === approval.tokenHash) return legacy
  }
  return approvalToken(keyring, approval.id)
}

/** The stored form of a token. */
export const approvalTokenHash = (token: string): string => hashSecret(token)

/** The public address of an approval page. */
export const approvalUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/$/, "")}/approve/${token}`
