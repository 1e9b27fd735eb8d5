/**
 * The `CredentialsCipher` service: platform credentials (tokens) are stored encrypted, with
 * AES-256-GCM under a key derived (HKDF-SHA256) from the server's newest master secret, and
 * bound to their account, so a sealed value copied onto another account does not open.
 *
 * Sealed values read `pwc2.<key id>.<iv>.<ciphertext>.<tag>` (base64url): the key id names the
 * master that sealed it, so a value opens under any master still listed. Values sealed by
 * 0.1 (`pwc1.<iv>.<ciphertext>.<tag>`, no key id) open by trying each master;
 * `postwire secrets reseal` rewrites them under the newest.
 *
 * Opening is an AES-GCM decryption, and the publisher opens an account's credentials at every
 * step of every target: a cipher keeps the last {@link openCacheSize} values it opened for at
 * most {@link openCacheMs}, keyed by the sealed value and its account, so the steps of a burst on
 * one account decrypt once. Only values that opened are kept (an altered one is checked every
 * time); the plaintext stays in memory no longer than it would while a step holds it, plus that
 * minute; a rotated token is sealed anew (a fresh IV), so it is another key.
 *
 * @since 0.1.0
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { Context, Effect, Layer, Option } from "effect"
import { EngineConfig } from "../EngineConfig.ts"
import * as Keyring from "./Keyring.ts"
import * as Spans from "../Spans.ts"
import type { AccountRecord } from "../store/AccountStore.ts"

/** Seals and opens an account's credentials. */
export interface CredentialsCipherShape {
  /** Encrypts `plaintext` for the account named by `context` (`<workspace id>/<account id>`). */
  readonly seal: (plaintext: string, context: string) => string
  /** Decrypts a sealed value; `None` when it was altered, sealed for another account or key. */
  readonly open: (sealed: string, context: string) => Option.Option<string>
  /** Whether a sealed value is already sealed under the newest master (nothing to reseal). */
  readonly isCurrent: (sealed: string) => boolean
}

/** Seals and opens platform credentials. */
export class CredentialsCipher extends Context.Service<CredentialsCipher, CredentialsCipherShape>()(
  "postwire/CredentialsCipher"
) {
  /**
   * A cipher keyed by `secret` (one master secret, or a keyring of several, newest first).
   *
   * @example
   * ```ts
   * const cipher = CredentialsCipher.make(secret)
   * const sealed = cipher.seal('{"access_token":"…"}', "ws_1/acc_1")
   * cipher.open(sealed, "ws_1/acc_1") // Option.some('{"access_token":"…"}')
   * ```
   */
  static readonly make = (secret: string | Keyring.Keyring): CredentialsCipherShape =>
    makeCipher(typeof secret === "string" ? Keyring.make([secret]) : secret)

  /** The cipher keyed by the engine's master secrets. */
  static readonly layer: Layer.Layer<CredentialsCipher, never, EngineConfig> = Layer.effect(CredentialsCipher)(
    EngineConfig.useSync((settings) => makeCipher(settings.keyring))
  )
}

const version = "pwc2"
const version1 = "pwc1"

/** The context a sealed value is bound to: its account. */
export const accountContext = (workspaceId: string, accountId: string): string => `${workspaceId}/${accountId}`

const decrypt = (key: Buffer, iv: string, body: string, tag: string, context: string): Option.Option<string> => {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
    decipher.setAAD(Buffer.from(context))
    decipher.setAuthTag(Buffer.from(tag, "base64url"))
    return Option.some(Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8"))
  } catch {
    return Option.none()
  }
}

/** How many opened values a cipher keeps. */
export const openCacheSize = 256

/** How long a cipher keeps an opened value (milliseconds). */
export const openCacheMs = 60_000

interface Opened {
  readonly context: string
  readonly plaintext: string
  readonly at: number
}

const makeCipher = (keyring: Keyring.Keyring): CredentialsCipherShape => {
  const sealer = Keyring.newest(keyring)
  const opened = new Map<string, Opened>()
  const remember = (sealed: string, context: string, result: Option.Option<string>): Option.Option<string> => {
    if (Option.isSome(result)) {
      if (opened.size >= openCacheSize) opened.delete(opened.keys().next().value as string)
      opened.set(sealed, { context, plaintext: result.value, at: Date.now() })
    }
    return result
  }
  const open = (sealed: string, context: string): Option.Option<string> => {
    const parts = sealed.split(".")
    if (parts[0] === version && parts.length === 5) {
      const [, id, iv, body, tag] = parts as [string, string, string, string, string]
      const master = Keyring.byId(keyring, id)
      return master === undefined ? Option.none() : decrypt(master.key("credentials"), iv, body, tag, context)
    }
    if (parts[0] === version1 && parts.length === 4) {
      const [, iv, body, tag] = parts as [string, string, string, string]
      for (const master of keyring.masters) {
        const result = decrypt(master.key("credentials"), iv, body, tag, context)
        if (Option.isSome(result)) return result
      }
    }
    return Option.none()
  }
  return {
    seal: (plaintext, context) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", sealer.key("credentials"), iv)
      cipher.setAAD(Buffer.from(context))
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [version, sealer.id, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".")
    },
    open: (sealed, context) => {
      const known = opened.get(sealed)
      if (known !== undefined) {
        if (known.context === context && Date.now() - known.at < openCacheMs) return Option.some(known.plaintext)
        opened.delete(sealed)
      }
      return remember(sealed, context, open(sealed, context))
    },
    isCurrent: (sealed) => sealed.startsWith(`${version}.${sealer.id}.`)
  }
}

/** The cipher in context, or one keyed by the engine's secret when none was provided. */
const current: Effect.Effect<CredentialsCipherShape, never, EngineConfig> = Effect.flatMap(
  Effect.serviceOption(CredentialsCipher),
  Option.match({
    onSome: Effect.succeed,
    onNone: () => EngineConfig.useSync((settings) => makeCipher(settings.keyring))
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
export const openAccountCredentials = Effect.fnUntraced(
  function* (account: AccountRecord) {
    if (account.credentials === null) return account
    const cipher = yield* CredentialsCipher
    const opened = cipher.open(account.credentials, accountContext(account.workspaceId, account.id))
    if (Option.isNone(opened)) yield* Effect.logWarning("stored credentials cannot be opened", { account_id: account.id })
    return { ...account, credentials: Option.getOrNull(opened) }
  },
  Spans.withSpan("publishing.openCredentials")
)
