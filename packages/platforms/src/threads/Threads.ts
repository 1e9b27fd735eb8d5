/**
 * The textpost adapter: the Threads API.
 *
 * A post without media is a TEXT container; one image or video an IMAGE or VIDEO container; more
 * a CAROUSEL whose children are created and processed first (a carousel counts as one post).
 * Before creating anything it reads `threads_publishing_limit` (250 posts per 24 h) and stops
 * with `quota_exceeded` at 100%; a reading under 80% of the quota stands for 30 s (the platform
 * still refuses a publish over its limit, which fails with `quota_exceeded` too). The account's `externalId` is the threads-user-id.
 *
 * @since 0.1.0
 */
import type { PublishInput } from "@postwire/core"
import { type ErrorCode, TargetRules } from "@postwire/domain"
import { Effect } from "effect"
import { failure, stringField, type Wire } from "../internal/Wire.ts"
import * as ContainerPublishing from "../meta/ContainerPublishing.ts"
import { rules } from "./Rules.ts"

/** Threads settings: host, token refresh, app secret, polling (see the package README). */
export interface Config extends ContainerPublishing.Config {
  /**
   * Whether calls to the Threads API carry `appsecret_proof` (an HMAC-SHA256 of the access token
   * keyed with `appSecret`). Default `false`: the Threads API documentation does not mention the
   * parameter, and Meta's "Securing Requests" makes it optional unless the app turns on "Require
   * App Secret". Turn it on (`POSTWIRE_THREADS_APPSECRET_PROOF=true`) for an app that requires it.
   */
  readonly appSecretProof?: boolean | undefined
}

/** Defaults: the production host; `refreshUrl: null` disables refreshing; no `appsecret_proof`. */
export const defaults = {
  ...ContainerPublishing.defaults,
  baseUrl: "https://graph.threads.net/v1.0",
  refreshUrl: "https://graph.threads.net/refresh_access_token",
  appSecretProof: false
} as const

/** The app secret that signs calls (`appsecret_proof`), only when the setting asks for it. */
export const proofSecret = (config: Pick<Config, "appSecret" | "appSecretProof">) =>
  config.appSecretProof === true ? config.appSecret : undefined

const item = (media: PublishInput["media"][number]) =>
  media.record.kind === "video"
    ? { media_type: "VIDEO", video_url: media.url }
    : { media_type: "IMAGE", image_url: media.url }

const plan = (input: PublishInput): ContainerPublishing.ContainerPlan => {
  const text = input.post.caption
  if (input.media.length === 0) return { children: [], parent: () => ({ media_type: "TEXT", text }) }
  if (input.media.length === 1) return { children: [], parent: () => ({ ...item(input.media[0]!), text }) }
  return {
    children: input.media.map((m) => ({ ...item(m), is_carousel_item: true })),
    parent: (children) => ({ media_type: "CAROUSEL", children: children.join(","), text })
  }
}

const readStatus = (body: unknown): ContainerPublishing.ContainerStatus => ({
  status: stringField(body, "status") ?? "IN_PROGRESS",
  detail: stringField(body, "error_message")
})

const containerError = (detail: string | undefined) => {
  const code: ErrorCode = detail === "FAILED_DOWNLOADING_VIDEO" || detail === "UNKNOWN" ? "platform_unavailable" : "media_invalid"
  return ContainerPublishing.mediaFailure("textpost", code, detail)
}

/**
 * The caption's break of Threads' rules (500 counted as Threads counts, 5 links), as the failure
 * that ends the target before anything is sent: validate refuses the same caption up front.
 */
const captionFailure = (caption: string) => {
  const length = TargetRules.captionLength(rules, caption)
  if (length > rules.captionMax) {
    return failure("caption_too_long", "caption_rules", {
      details: { limit: rules.captionMax, platform: "textpost" },
      state: null,
      notPublished: true
    })
  }
  const broken = rules.checkCaption?.(caption)
  return broken === undefined ? undefined : failure(broken.code, "caption_rules", { details: broken.details, state: null, notPublished: true })
}

/** Creates the adapter. */
export const make = (config: Config, wire: Wire): ContainerPublishing.ContainerAdapter => {
  const adapter = ContainerPublishing.make(
    {
      platform: "textpost",
      mediaEdge: "threads",
      publishEdge: "threads_publish",
      limitEdge: "threads_publishing_limit",
      captionField: "text",
      statusFields: "status,error_message",
      readStatus,
      containerError,
      plan,
      defaultQuota: rules.dailyQuota,
      rules,
      refreshGrantType: "th_refresh_token"
    },
    { ...config, appSecret: proofSecret(config) },
    wire
  )
  return {
    ...adapter,
    publish: (input) => {
      const broken = input.state === null || input.state === undefined ? captionFailure(input.post.caption) : undefined
      return broken === undefined ? adapter.publish(input) : Effect.fail(broken)
    }
  }
}
