/**
 * The server's `CommentPlatform`: the platforms' comment adapters (`CommentRouter`) on the same
 * hosts, app secrets and token refresh as publishing, with sandbox accounts on the simulated
 * platform's comments; the calls on the same keep-alive connections (`NodePlatformHttp`).
 *
 * @since 0.3.0
 */
import type { CommentPlatform } from "@postwire/core"
import { CommentRouter, type PlatformRouter, SimulatedComments } from "@postwire/platforms"
import { Layer } from "effect"
import * as NodePlatformHttp from "../node/NodePlatformHttp.ts"

/** The comment adapters over the publishing adapters' settings. */
export const PlatformComments = (platforms: PlatformRouter.Options): Layer.Layer<CommentPlatform> =>
  CommentRouter.layerWithoutHttpClient(platforms, SimulatedComments.make()).pipe(
    Layer.provide(NodePlatformHttp.layerWithHttpClient)
  )
