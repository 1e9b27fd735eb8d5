/**
 * A fake of Instagram's content publishing (platforms.md, "Instagram Graph API, Reels"): media
 * containers on `/{ig-user-id}/media`, `status_code` polling, `media_publish`,
 * `content_publishing_limit` (100 per 24 h), permalinks, and `ig_refresh_token`.
 */
import type { Effect, Scope } from "effect"
import * as ContainerFake from "./ContainerFake.ts"

/** The ig-user-id the fake serves. */
export const igUserId = "17841400000000001"

/** Starts the fake; its `url` is the Graph base address with the version. */
export const make = (): Effect.Effect<ContainerFake.ContainerFake, never, Scope.Scope> =>
  ContainerFake.make({
    version: "v23.0",
    userId: igUserId,
    mediaEdge: "media",
    publishEdge: "media_publish",
    limitEdge: "content_publishing_limit",
    statusField: "status_code",
    errorField: "status",
    captionField: "caption",
    refreshGrant: "ig_refresh_token",
    quotaTotal: 100,
    permalink: (id) => `https://www.instagram.com/p/C${id.slice(-8)}x/`
  })
