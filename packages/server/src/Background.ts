/**
 * Background work of an instance whose role is `worker` or `all`: each loop is a layer that
 * runs for as long as the server does.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import type { ServerSettings } from "./config/ServerConfig.ts"
import * as AnalyticsWorker from "./worker/AnalyticsWorker.ts"
import * as CommentWorker from "./worker/CommentWorker.ts"
import * as DeliveryWorker from "./worker/DeliveryWorker.ts"
import * as MediaWorker from "./worker/MediaWorker.ts"
import * as PublishingWorker from "./worker/PublishingWorker.ts"
import * as StatisticsWorker from "./worker/StatisticsWorker.ts"
import * as TokenRenewalWorker from "./worker/TokenRenewalWorker.ts"

/** The background loops; an instance with role `api` runs none. */
export const backgroundLayer = (settings: ServerSettings) =>
  settings.role === "api"
    ? Layer.empty
    : Layer.mergeAll(
        DeliveryWorker.layer(),
        PublishingWorker.layer,
        TokenRenewalWorker.layer,
        CommentWorker.layer,
        AnalyticsWorker.layer,
        MediaWorker.layer,
        StatisticsWorker.layer
      )
