/**
 * The events an account's own changes write.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { Ids } from "../ids/Ids.ts"
import { makeEvent } from "../posts/PostEvents.ts"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"

/** An account event: the account, and why it changed (a catalog code or a disconnect reason). */
const accountEvent = (
  type: "account.needs_reconnect" | "account.disconnected",
  account: AccountRecord,
  reason: string,
  at: number
): Effect.Effect<OutboxEvent, never, Ids> =>
  makeEvent(
    account.workspaceId,
    type,
    {
      account_id: account.id,
      profile_id: account.profileId,
      platform: account.platform,
      handle: account.handle,
      reason
    },
    !account.sandbox,
    at
  )

/**
 * `account.needs_reconnect`: the platform refused the account's token or permission (a publish,
 * a comment poll, a token refresh), and the person must connect it again. `reason` is the
 * catalog code of the refusal.
 */
export const needsReconnect = (account: AccountRecord, reason: string, at: number): Effect.Effect<OutboxEvent, never, Ids> =>
  accountEvent("account.needs_reconnect", account, reason, at)

/** `account.disconnected`: the account was disconnected, for `reason`. */
export const disconnected = (account: AccountRecord, reason: string, at: number): Effect.Effect<OutboxEvent, never, Ids> =>
  accountEvent("account.disconnected", account, reason, at)
