/**
 * The events an account's own changes write.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { Ids } from "../ids/Ids.ts"
import { makeEvent } from "../posts/PostEvents.ts"
import type { AccountRecord, OutboxEvent } from "../store/Records.ts"

/**
 * `account.needs_reconnect`: the platform refused the account's token or permission (a publish,
 * a comment poll, a token refresh), and the person must connect it again. `reason` is the
 * catalog code of the refusal.
 */
export const needsReconnect = (
  account: AccountRecord,
  reason: string,
  at: number
): Effect.Effect<OutboxEvent, never, Ids> =>
  makeEvent(
    account.workspaceId,
    "account.needs_reconnect",
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
