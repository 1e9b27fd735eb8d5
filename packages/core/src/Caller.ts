/**
 * Who asks: the authenticated key, as the engine sees it (no HTTP here).
 *
 * Test keys (`svc_test_…`) live in test mode, as Stripe's do: they see and change only sandbox
 * accounts and what belongs to them. Every use-case that reads or changes one resource checks
 * it with `refuseLiveToTestKey`; every list hides live items from a test key with `sees`.
 * docs/decisions.md lists every route and what a test key may do there.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type ApprovalLinks, type Ids, type KeyKind, PostwireError } from "@postwire/domain"

/** The key a use-case acts for. */
export interface Caller {
  readonly workspaceId: Ids.WorkspaceId
  readonly keyId: Ids.KeyId
  readonly kind: KeyKind
  /**
   * Whether the key may see approval links; `hidden` also keeps them out of the deliveries to the
   * webhook endpoints it registers or changes. Absent: `shown`.
   */
  readonly approvalLinks?: ApprovalLinks | undefined
}

/** Whether the caller may see a resource: a live key sees its whole workspace, a test key only test-mode resources. */
export const sees = (caller: Caller, live: boolean): boolean => caller.kind === "live" || !live

/** 403 `test_key_live_account`, naming the request field that names the live resource. */
export const testKeyLiveAccount = (field: string): PostwireError => new PostwireError({ code: "test_key_live_account", field })

/**
 * Refuses a test key on a live resource (a live account, or a post, comment, event or webhook
 * endpoint that carries a live account's data) with 403 `test_key_live_account`.
 *
 * @example
 * ```ts
 * yield* refuseLiveToTestKey(caller, !account.sandbox)
 * ```
 */
export const refuseLiveToTestKey = (caller: Caller, live: boolean, field = "id"): Effect.Effect<void, PostwireError> =>
  sees(caller, live) ? Effect.void : Effect.fail(testKeyLiveAccount(field))
