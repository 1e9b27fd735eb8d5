/**
 * A fake of the Threads API (platforms.md, "Threads"): containers on `/{threads-user-id}/threads`,
 * `status` and `error_message` polling, `threads_publish`, `threads_publishing_limit` (250 per
 * 24 h), permalinks, and `th_refresh_token`.
 */
import type { Effect, Scope } from "effect"
import * as ContainerFake from "./ContainerFake.ts"

/** The threads-user-id the fake serves. */
export const threadsUserId = "25000000000000001"

/** Starts the fake; its `url` is the Graph base address with the version. */
export const make = (): Effect.Effect<ContainerFake.ContainerFake, never, Scope.Scope> =>
  ContainerFake.make({
    version: "v1.0",
    userId: threadsUserId,
    mediaEdge: "threads",
    publishEdge: "threads_publish",
    limitEdge: "threads_publishing_limit",
    statusField: "status",
    errorField: "error_message",
    captionField: "text",
    refreshGrant: "th_refresh_token",
    quotaTotal: 250,
    permalink: (id) => `https://www.threads.net/@maya.bakes/post/D${id.slice(-8)}y`
  })
