/**
 * The platform rules (`TargetRules.PlatformRuleSet`, each platform's own) as the adapters check
 * them before anything is sent: the real adapters and the simulated platform alike, with the same
 * facts validate and create use (`PostValidation.ruleFacts`), so a target that validated is never
 * refused here, and a sandbox account refuses what the real platform would.
 *
 * @internal
 */
import { type PlatformFailure, PostValidation, type PublishInput } from "@postwire/core"
import { TargetRules } from "@postwire/domain"
import { failure } from "./Wire.ts"

/** The first rule the target's media breaks, as the failure that ends the target. */
export const check = (
  input: Pick<PublishInput, "account" | "target" | "media">,
  rules: TargetRules.PlatformRuleSet
): PlatformFailure | undefined => {
  const broken = TargetRules.mediaRuleBreak(
    PostValidation.ruleFacts(input.account, input.target.options, rules),
    input.media.map((m) => m.record)
  )
  return broken === undefined ? undefined : failure(broken.code, "media_rules", { details: broken.details, state: null })
}
