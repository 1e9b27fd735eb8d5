/**
 * `postwire secrets reseal`: re-seals every stored platform credential under the newest master
 * secret, then deletes the 0.1 secret from the database once nothing needs it. Idempotent (a
 * credential already under the newest is left alone) and resumable (each account is its own
 * update; run it again after an interruption).
 *
 * @since 0.2.0
 */
import { Effect, Option } from "effect"
import { CredentialsCipher, accountContext, Store } from "@postwire/core"
import { SqlCredentials } from "@postwire/store-sql"
import type { ServerSettings } from "../config/ServerConfig.ts"
import * as ServerSecrets from "./ServerSecrets.ts"

/** What a reseal did. */
export interface ResealCounts {
  /** Credentials re-sealed under the newest master. */
  readonly resealed: number
  /** Credentials already under the newest master. */
  readonly current: number
  /** Credentials no listed master opens (left as they are; their accounts need reconnecting). */
  readonly unreadable: number
  /** Credentials a running server replaced while this ran (run reseal again). */
  readonly changed: number
  /** Whether the 0.1 secret was deleted from the database by this run. */
  readonly legacyDeleted: boolean
}

const batchSize = 200

/** Runs the reseal with the master secrets of these settings. */
export const reseal = (settings: Pick<ServerSettings, "secrets" | "databaseUrl" | "dataDir">) =>
  Effect.gen(function* () {
    const resolved = yield* ServerSecrets.resolve(settings)
    // Re-sealing under the database's own secret, then deleting it, would lose every credential.
    if (resolved.source === "database (legacy)") return yield* new ServerSecrets.SecretRequired()
    const cipher = CredentialsCipher.make(resolved.keyring)
    let counts = { resealed: 0, current: 0, unreadable: 0, changed: 0 }
    let after: { readonly workspaceId: string; readonly accountId: string } | undefined
    while (true) {
      const batch = yield* SqlCredentials.listAfter(after, batchSize)
      for (const sealed of batch) {
        if (cipher.isCurrent(sealed.credentials)) {
          counts = { ...counts, current: counts.current + 1 }
          continue
        }
        const opened = cipher.open(sealed.credentials, accountContext(sealed.workspaceId, sealed.accountId))
        if (Option.isNone(opened)) {
          counts = { ...counts, unreadable: counts.unreadable + 1 }
          continue
        }
        const next = cipher.seal(opened.value, accountContext(sealed.workspaceId, sealed.accountId))
        const replaced = yield* SqlCredentials.replace(sealed, next)
        counts = replaced ? { ...counts, resealed: counts.resealed + 1 } : { ...counts, changed: counts.changed + 1 }
      }
      const last = batch.at(-1)
      if (last === undefined || batch.length < batchSize) break
      after = last
    }
    let legacyDeleted = false
    if (resolved.legacyInDatabase && counts.changed === 0) {
      const store = yield* Store
      const legacy = yield* store.readSetting(ServerSecrets.legacySettingName).pipe(Effect.orDie)
      if (Option.isSome(legacy)) {
        legacyDeleted = yield* store.deleteSetting(ServerSecrets.legacySettingName, legacy.value).pipe(Effect.orDie)
      }
    }
    return { ...counts, legacyDeleted } satisfies ResealCounts
  })

/** The lines `postwire secrets reseal` prints. */
export const report = (counts: ResealCounts): ReadonlyArray<string> => [
  `Re-sealed ${counts.resealed} credential${counts.resealed === 1 ? "" : "s"} under the newest secret; ${counts.current} already were; ${counts.unreadable} cannot be opened with any listed secret; ${counts.changed} changed while this ran.`,
  counts.legacyDeleted
    ? "Deleted the old secret from the database: it is no longer needed."
    : counts.changed > 0
      ? "Run `postwire secrets reseal` again to finish."
      : "No secret is left in the database."
]
