/**
 * The server's `CommentPlatform`: sandbox accounts read and moderate the simulated platform's
 * comments; the real platforms' comment adapters are not wired in this layer yet, so their polls
 * and actions fail as `platform_unavailable` (polling backs off and tries again later) while their
 * capabilities already say what each platform offers. All the routing lives here.
 *
 * @since 0.3.0
 */

import { type AccountRecord, CommentPlatform, PlatformFailure } from "@postwire/core"
import { Comment } from "@postwire/domain"
import { SimulatedComments } from "@postwire/platforms"
import { Effect, Layer } from "effect"

const notAvailable = (account: AccountRecord) =>
  Effect.fail(
    new PlatformFailure({
      code: "platform_unavailable",
      platformCode: `comments_not_available_${account.platform}`,
      retryable: true
    })
  )

/** Routes sandbox accounts to the simulated comments. */
export const SandboxCommentPlatform: Layer.Layer<CommentPlatform> = Layer.sync(CommentPlatform)(() => {
  const simulated = SimulatedComments.make()
  return {
    capabilities: (platform, sandbox) => Comment.commentCapabilities(platform, sandbox),
    poll: (input) => (input.account.sandbox ? simulated.poll(input) : notAvailable(input.account)),
    reply: (input) => (input.account.sandbox ? simulated.reply(input) : notAvailable(input.account)),
    setHidden: (input) => (input.account.sandbox ? simulated.setHidden(input) : notAvailable(input.account)),
    remove: (input) => (input.account.sandbox ? simulated.remove(input) : notAvailable(input.account))
  }
})
