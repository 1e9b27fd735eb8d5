/**
 * TikTok's per-target options (`targets[].shortvideo`): the mode (`direct` or `inbox`) and the
 * creator's consent for a direct post. The schema stays exported from `@postwire/domain`
 * (`Post.ShortVideoOptions`) for compatibility; a target without options is an `inbox` post.
 *
 * @since 0.5.0
 */
import { Post, TargetRules } from "@postwire/domain"

/** The TikTok plugin's `options`. */
export const options: TargetRules.OptionsSpec = {
  schema: Post.ShortVideoOptions,
  resolve: (given) => TargetRules.resolved((given as Post.ShortVideoOptions | undefined) ?? { mode: "inbox" }),
  // A direct post publishes to the creator's profile: TikTok's Content Sharing Guidelines ask for
  // the creator's consent (https://developers.tiktok.com/doc/content-sharing-guidelines).
  needsConsent: (stored) => (stored as Post.ShortVideoOptions | undefined)?.mode === "direct"
}
