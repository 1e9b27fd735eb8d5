/**
 * `postwire secrets reseal`: re-seals every stored platform credential and webhook signing secret
 * under the newest master secret (sealing the signing secrets stored before they were sealed,
 * and the approval links of `post.awaiting_approval` events written before links were sealed),
 * then deletes the 0.1 secret from the database once nothing needs it. Idempotent (a value
 * already under the newest is left alone) and resumable (each account and endpoint is its own
 * update; run it again after an interruption).
 *
 * @since 0.2.0
 */
import { Effect, Option } from "effect"
import { CredentialsCipher, type CredentialsCipherShape, accountContext, EventSecrets, Store, WebhookSecrets } from "@postwire/core"
import { SqlCredentials, SqlEventLinks, SqlWebhookSecrets } from "@postwire/store-sql"
import type { ServerSettings } from "../config/ServerConfig.ts"
import * as ServerSecrets from "./ServerSecrets.ts"

/** What happened to one kind of sealed value. */
export interface Counts {
  /** Re-sealed under the newest master (a signing secret stored unsealed: sealed). */
  readonly resealed: number
  /** Already under the newest master. */
  readonly current: number
  /** Opened by no listed master, left as they are (accounts need reconnecting, endpoints a new secret). */
  readonly unreadable: number
  /** Replaced by a running server while this ran (run reseal again). */
  readonly changed: number
}

/** What a reseal did: the credentials' counts, the webhook signing secrets', and whether the 0.1 secret went. */
export interface ResealCounts extends Counts {
  readonly webhookSecrets: Counts
  /** Approval links of events written in clear: `resealed` sealed now, `changed` replaced meanwhile. */
  readonly approvalLinks: Counts
  /** Whether the 0.1 secret was deleted from the database by this run. */
  readonly legacyDeleted: boolean
}

const none: Counts = { resealed: 0, current: 0, unreadable: 0, changed: 0 }

/** `counts` with one more of `what`. */
const bump = (counts: Counts, what: keyof Counts): Counts => ({ ...counts, [what]: counts[what] + 1 })

const batchSize = 200

/** A stored signing secret sealed under the newest master: as it is, or sealed (again); `None` when unreadable. */
const resealSecret = (
  cipher: CredentialsCipherShape,
  endpoint: WebhookSecrets.EndpointKey,
  stored: string
): Option.Option<string> => {
  if (!WebhookSecrets.isUnsealed(stored) && cipher.isCurrent(stored)) return Option.some(stored)
  return Option.map(WebhookSecrets.open(cipher, endpoint, stored), (secret) => WebhookSecrets.seal(cipher, endpoint, secret))
}

/** Seals every endpoint's signing secrets under the newest master. */
const resealWebhookSecrets = (cipher: CredentialsCipherShape) =>
  Effect.gen(function* () {
    let counts = none
    let after: { readonly workspaceId: string; readonly endpointId: string } | undefined
    while (true) {
      const batch = yield* SqlWebhookSecrets.listAfter(after, batchSize)
      for (const stored of batch) {
        const endpoint = { workspaceId: stored.workspaceId, id: stored.endpointId }
        const secret = resealSecret(cipher, endpoint, stored.secret)
        // A previous secret that no longer opens would not sign anyway: it is dropped.
        const previous = stored.previousSecret === null ? Option.none() : resealSecret(cipher, endpoint, stored.previousSecret)
        if (Option.isNone(secret)) {
          counts = bump(counts, "unreadable")
          continue
        }
        const next = { secret: secret.value, previousSecret: Option.getOrNull(previous) }
        if (next.secret === stored.secret && next.previousSecret === stored.previousSecret) {
          counts = bump(counts, "current")
          continue
        }
        const replaced = yield* SqlWebhookSecrets.replace(stored, next)
        counts = bump(counts, replaced ? "resealed" : "changed")
      }
      const last = batch.at(-1)
      if (last === undefined || batch.length < batchSize) break
      after = last
    }
    return counts
  })

/** Seals the approval links events hold in clear (written before links were sealed). */
const sealApprovalLinks = (cipher: CredentialsCipherShape) =>
  Effect.gen(function* () {
    let counts = none
    let after: { readonly workspaceId: string; readonly seq: string } | undefined
    while (true) {
      const batch = yield* SqlEventLinks.listAfter(after, batchSize)
      for (const link of batch) {
        const sealed = EventSecrets.sealLink(cipher, link.workspaceId, link.approvalId, link.url)
        counts = bump(counts, (yield* SqlEventLinks.replace(link, sealed)) ? "resealed" : "changed")
      }
      const last = batch.at(-1)
      if (last === undefined || batch.length < batchSize) break
      after = last
    }
    return counts
  })

/** Runs the reseal with the master secrets of these settings. */
export const reseal = (settings: Pick<ServerSettings, "secrets" | "databaseUrl" | "dataDir">) =>
  Effect.gen(function* () {
    const resolved = yield* ServerSecrets.resolve(settings)
    // Re-sealing under the database's own secret, then deleting it, would lose every credential.
    if (resolved.source === "database (legacy)") return yield* new ServerSecrets.SecretRequired()
    const cipher = CredentialsCipher.make(resolved.keyring)
    let counts = none
    let after: { readonly workspaceId: string; readonly accountId: string } | undefined
    while (true) {
      const batch = yield* SqlCredentials.listAfter(after, batchSize)
      for (const sealed of batch) {
        if (cipher.isCurrent(sealed.credentials)) {
          counts = bump(counts, "current")
          continue
        }
        const opened = cipher.open(sealed.credentials, accountContext(sealed.workspaceId, sealed.accountId))
        if (Option.isNone(opened)) {
          counts = bump(counts, "unreadable")
          continue
        }
        const next = cipher.seal(opened.value, accountContext(sealed.workspaceId, sealed.accountId))
        const replaced = yield* SqlCredentials.replace(sealed, next)
        counts = bump(counts, replaced ? "resealed" : "changed")
      }
      const last = batch.at(-1)
      if (last === undefined || batch.length < batchSize) break
      after = last
    }
    const webhookSecrets = yield* resealWebhookSecrets(cipher)
    const approvalLinks = yield* sealApprovalLinks(cipher)
    let legacyDeleted = false
    if (resolved.legacyInDatabase && counts.changed === 0 && webhookSecrets.changed === 0) {
      const store = yield* Store
      const legacy = yield* store.readSetting(ServerSecrets.legacySettingName).pipe(Effect.orDie)
      if (Option.isSome(legacy)) {
        legacyDeleted = yield* store.deleteSetting(ServerSecrets.legacySettingName, legacy.value).pipe(Effect.orDie)
      }
    }
    return { ...counts, webhookSecrets, approvalLinks, legacyDeleted } satisfies ResealCounts
  })

/** The lines `postwire secrets reseal` prints. */
export const report = (counts: ResealCounts): ReadonlyArray<string> => [
  `Re-sealed ${counts.resealed} credential${counts.resealed === 1 ? "" : "s"} under the newest secret; ${counts.current} already were; ${counts.unreadable} cannot be opened with any listed secret; ${counts.changed} changed while this ran.`,
  `Sealed the signing secrets of ${counts.webhookSecrets.resealed} webhook endpoint${counts.webhookSecrets.resealed === 1 ? "" : "s"} under the newest secret; ${counts.webhookSecrets.current} already were; ${counts.webhookSecrets.unreadable} cannot be opened with any listed secret; ${counts.webhookSecrets.changed} changed while this ran.`,
  // Only after an upgrade from a version that wrote them in clear.
  ...(counts.approvalLinks.resealed > 0
    ? [`Sealed the approval links of ${counts.approvalLinks.resealed} event${counts.approvalLinks.resealed === 1 ? "" : "s"} written before links were sealed.`]
    : []),
  counts.legacyDeleted
    ? "Deleted the old secret from the database: it is no longer needed."
    : counts.changed > 0 || counts.webhookSecrets.changed > 0
      ? "Run `postwire secrets reseal` again to finish."
      : "No secret is left in the database."
]
