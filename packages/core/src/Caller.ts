/**
 * Who asks: the authenticated key, as the engine sees it (no HTTP here).
 *
 * @since 0.1.0
 */
import type { ApprovalLinks, Ids, KeyKind } from "@postwire/domain"

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
