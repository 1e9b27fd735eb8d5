import type { WebhookSecret } from "../WebhookSecret.ts"

/**
 * The secrets as a non-empty list. A missing secret is a configuration mistake (an unset
 * environment variable), not a bad delivery, so it throws a `TypeError` rather than rejecting.
 */
export const secretList = (secret: WebhookSecret): ReadonlyArray<string> => {
  const secrets: ReadonlyArray<unknown> = typeof secret === "string" ? [secret] : secret
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError("A webhook secret is required: pass the endpoint's whsec_... string or a list of them")
  }
  for (const candidate of secrets) {
    if (typeof candidate !== "string" || candidate.length === 0) {
      throw new TypeError("Every webhook secret must be a non-empty string (is the environment variable set?)")
    }
  }
  return secrets as ReadonlyArray<string>
}
