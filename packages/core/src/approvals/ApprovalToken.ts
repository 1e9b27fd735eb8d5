/**
 * Approval link tokens. A token is the HMAC of the approval id under the server secret
 * (256 bits): only its SHA-256 is stored, yet the server can show the link again in the post
 * detail. Without the server secret, a copy of the database reveals no working link.
 *
 * @since 0.1.0
 */
import { createHmac } from "node:crypto"
import { hashSecret } from "../ids/Ids.ts"

/** The token of an approval. */
export const approvalToken = (secret: string, approvalId: string): string =>
  createHmac("sha256", secret).update(`approval:${approvalId}`).digest("base64url")

/** The stored form of a token. */
export const approvalTokenHash = (token: string): string => hashSecret(token)

/** The public address of an approval page. */
export const approvalUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/$/, "")}/approve/${token}`
