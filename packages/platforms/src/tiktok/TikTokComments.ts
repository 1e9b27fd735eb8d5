/**
 * TikTok comments: none. The public APIs an app of Postwire's kind may use (Login Kit, Content
 * Posting) give no comment access: no scope reads or answers comments, and TikTok sends no comment
 * webhooks. Only the Research API (researchers) and the separate TikTok API for Business list them.
 *
 * So every capability is `false` (its rules' `comments`); a poll answers an empty result without calling TikTok; answering,
 * hiding and deleting fail with `invalid_state` (`platform_code: tiktok_comments_unavailable`),
 * never retried.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { type CommentAdapter, unsupported } from "../comments/CommentAdapter.ts"

/** The `platform_code` of a refused TikTok comment action. */
export const refusalCode = "tiktok_comments_unavailable"

/** The TikTok comment adapter: nothing to read, every action refused. */
export const adapter: CommentAdapter = {
  poll: (input) => Effect.succeed({ comments: [], cursor: input.cursor ?? null, calls: 0 }),
  reply: () => Effect.fail(unsupported(refusalCode)),
  setHidden: () => Effect.fail(unsupported(refusalCode)),
  remove: () => Effect.fail(unsupported(refusalCode))
}
