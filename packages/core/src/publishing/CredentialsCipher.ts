/**
 * The `CredentialsCipher` service: platform credentials (tokens) are stored encrypted, with
 * AES-256-GCM under a key derived from the server secret, and bound to their account, so a
 * sealed value copied onto another account does not open.
 *
 * Sealed values read `pwc1.<iv>.<ciphertext>.<tag>` (base64url): the version prefix leaves room
 * for a key rotation.
 *
 * @since 0.1.0
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import { Context, Effect, Layer, Option } from "effect"
import { EngineConfig } from "../EngineConfig.ts"
import type { AccountRecord } from "../store/Records.ts"

/** Seals and opens an account's credentials. */
export interface CredentialsCipherShape {
  /** Encrypts `plaintext` for the account named by `context` (`<workspace id>/<account id>`). */
  readonly seal: (plaintext: string, context: string) => string
  /** Decrypts a sealed value; `None` when it was altered, sealed for another account or key. */
  readonly open: (sealed: string, context: string) => Option.Option<string>
}

/** Seals and opens platform credentials. */
export class CredentialsCipher extends Context.Service<CredentialsCipher, CredentialsCipherShape>()(
  "postwire/CredentialsCipher"
) {
  /**
   * A cipher whose key is derived (HKDF-SHA256) from `secret`.
   *
   * @example
   * ```ts
   * const cipher = CredentialsCipher.make(secret)
   * const sealed = cipher.seal('{"access_token":"…"}', "ws_1/acc_1")
   * cipher.open(sealed, "ws_1/acc_1") // Option.some('{"access_token":"…"}')
   * ```
   */
  static readonly make = (secret: string): CredentialsCipherShape => makeCipher(secret)

  /** The cipher keyed by the engine's server secret. */
  static readonly layer: Layer.Layer<CredentialsCipher, never, EngineConfig> = Layer.effect(CredentialsCipher)(
    EngineConfig.useSync((settings) => makeCipher(settings.secret))
  )
}

const version = "pwc1"

/** The context a sealed value is bound to: its account. */
export const accountContext = (workspaceId: string, accountId: string): string => `${workspaceId}/${accountId}`

const makeCipher = (secret: string): CredentialsCipherShape => {
  const key = Buffer.from(hkdfSync("sha256", secret, "postwire", "postwire/credentials/v1", 32))
  return {
    seal: (plaintext, context) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", key, iv)
      cipher.setAAD(Buffer.from(context))
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [version, iv, body, cipher.getAuthTag()]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".")
    },
    open: (sealed, context) => {
      const [prefix, iv, body, tag] = sealed.split(".")
      if (prefix !== version || iv === undefined || body === undefined || tag === undefined) return Option.none()
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
        decipher.setAAD(Buffer.from(context))
        decipher.setAuthTag(Buffer.from(tag, "base64url"))
        return Option.some(Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8"))
      } catch {
        return Option.none()
      }
    }
  }
}

/** The cipher in context, or one keyed by the engine's secret when none was provided. */
const current: Effect.Effect<CredentialsCipherShape, never, EngineConfig> = Effect.flatMap(
  Effect.serviceOption(CredentialsCipher),
  Option.match({
    onSome: Effect.succeed,
    onNone: () => EngineConfig.useSync((settings) => makeCipher(settings.secret))
  })
)

/** Seals credentials for an account with the cipher in context (or the engine secret's). */
export const sealCredentials = (
  plaintext: string,
  workspaceId: string,
  accountId: string
): Effect.Effect<string, never, EngineConfig> =>
  Effect.map(current, (cipher) => cipher.seal(plaintext, accountContext(workspaceId, accountId)))

/**
 * The account with its credentials opened for a platform adapter; `null` credentials when they
 * cannot be opened (the adapter then fails the call as it would without a token).
 */
export const openAccountCredentials = Effect.fn("publishing.openCredentials")(function* (account: AccountRecord) {
  if (account.credentials === null) return account
  const cipher = yield* CredentialsCipher
  const opened = cipher.open(account.credentials, accountContext(account.workspaceId, account.id))
  if (Option.isNone(opened)) yield* Effect.logWarning("stored credentials cannot be opened", { account_id: account.id })
  return { ...account, credentials: Option.getOrNull(opened) }
})
