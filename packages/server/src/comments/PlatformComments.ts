/**
 * The server's `CommentPlatform`: the platforms' comment adapters (`CommentRouter`) on the same
 * hosts, app secrets and token refresh as publishing, with sandbox accounts on the simulated
 * platform's comments.
 *
 * @since 0.3.0
 */
import type { CommentPlatform } from "@postwire/core"
import { CommentRouter, type PlatformRouter, SimulatedComments } from "@postwire/platforms"
import type { Layer } from "effect"

/** The comment adapters over the publishing adapters' settings. */
export const PlatformComments = (platforms: PlatformRouter.Options): Layer.Layer<CommentPlatform> =>
  CommentRouter.layer(platforms, SimulatedComments.make())
