/**
 * The photo adapter: Instagram's content publishing through the Graph API.
 *
 * - `reel`: one REELS container (`video_url`, `share_to_feed`).
 * - `feed`: one image container, one video (published as a reel shared to the feed: Meta retired
 *   feed VIDEO containers), or a CAROUSEL whose children are created and processed first.
 * - `story`: one STORIES container with an image or a video.
 *
 * Before creating anything it reads `content_publishing_limit` and stops with `quota_exceeded`
 * at 100% (the quota is enforced again by Meta at `media_publish`); a reading under 80% of the
 * quota stands for 30 s. The account's
 * `externalId` is the ig-user-id.
 *
 * @since 0.1.0
 */
import { type PlatformFailure, type PublishInput, type PublishMedia, TargetDetails } from "@postwire/core"
import { Effect } from "effect"
import type { ErrorCode } from "@postwire/domain"
import { kindOf } from "./Options.ts"
import { rules } from "./Rules.ts"
import { amend, stringField, type Wire } from "../internal/Wire.ts"
import * as ContainerPublishing from "../meta/ContainerPublishing.ts"

/**
 * Whether calls carry `appsecret_proof`: `on`, `off`, or `auto` (the default: only on
 * `graph.facebook.com`, the host Meta's "Securing Requests" page documents it for; the Instagram
 * API with Instagram Login pages on `graph.instagram.com` do not mention it). Set with
 * `POSTWIRE_INSTAGRAM_APPSECRET_PROOF`.
 */
export type AppSecretProof = "auto" | "on" | "off"

/** Instagram settings: host, token refresh, app secret and its proof, polling (see the package README). */
export interface Config extends ContainerPublishing.Config {
  readonly appSecretProof?: AppSecretProof | undefined
}

/**
 * Whether calls to `baseUrl` carry `appsecret_proof` under the setting: `auto` sends it only to
 * `graph.facebook.com` (https://developers.facebook.com/docs/graph-api/securing-requests).
 */
export const sendsProof = (setting: AppSecretProof | undefined, baseUrl: string): boolean => {
  if (setting === "on") return true
  if (setting === "off") return false
  try {
    return new URL(baseUrl).hostname === "graph.facebook.com"
  } catch {
    return false
  }
}

/** Reads `POSTWIRE_INSTAGRAM_APPSECRET_PROOF` (`on`, `off`, `auto`); stops the start on another value. */
export const parseAppSecretProof = (name: string, raw: string | undefined): AppSecretProof | undefined => {
  if (raw === undefined) return undefined
  const value = raw.toLowerCase()
  if (value === "on" || value === "off" || value === "auto") return value
  throw new Error(`${name}: expected on, off or auto, got "${raw}"`)
}

/** The app secret to sign calls with, or `undefined` when the proof is not sent. */
export const proofSecret = (config: Pick<Config, "appSecret" | "appSecretProof" | "baseUrl">) =>
  sendsProof(config.appSecretProof, config.baseUrl) ? config.appSecret : undefined

/**
 * Defaults: Instagram Login's host. Facebook Login apps set `baseUrl` to
 * `https://graph.facebook.com/v23.0` and `refreshUrl` to `null`.
 */
export const defaults = {
  ...ContainerPublishing.defaults,
  baseUrl: "https://graph.instagram.com/v23.0",
  refreshUrl: "https://graph.instagram.com/refresh_access_token",
  appSecretProof: "auto"
} as const

const item = (media: PublishInput["media"][number]) =>
  media.record.kind === "video" ? { media_type: "VIDEO", video_url: media.url } : { image_url: media.url }

const plan = (input: PublishInput): ContainerPublishing.ContainerPlan => {
  const caption = input.post.caption
  const [first] = input.media
  switch (kindOf(input.target.options[input.account.platform], input.media.map((m) => m.record))) {
    case "reel":
      return { children: [], parent: () => ({ media_type: "REELS", video_url: first!.url, caption, share_to_feed: true }) }
    case "story":
      return {
        children: [],
        parent: () =>
          first!.record.kind === "video"
            ? { media_type: "STORIES", video_url: first!.url }
            : { media_type: "STORIES", image_url: first!.url }
      }
    case "feed":
      if (input.media.length === 1) {
        return {
          children: [],
          parent: () =>
            first!.record.kind === "video"
              ? { media_type: "REELS", video_url: first!.url, caption, share_to_feed: true }
              : { image_url: first!.url, caption }
        }
      }
      return {
        children: input.media.map((m) => ({ ...item(m), is_carousel_item: true })),
        parent: (children) => ({ media_type: "CAROUSEL", children: children.join(","), caption })
      }
  }
}

/** Reads `status_code` (and Meta's `status` text, which carries the error reason). */
const readStatus = (body: unknown): ContainerPublishing.ContainerStatus => ({
  status: stringField(body, "status_code") ?? "IN_PROGRESS",
  detail: stringField(body, "status")
})

const containerError = (detail: string | undefined) => {
  // Meta's status text reads like "Error: ... (2207026)": keep the subcode for support.
  const subcode = detail === undefined ? undefined : /\b(22\d{5})\b/.exec(detail)?.[1]
  const code: ErrorCode = subcode === "2207003" || subcode === "2207001" ? "platform_unavailable" : "media_invalid"
  return ContainerPublishing.mediaFailure("photo", code, subcode ?? "container_error")
}

/**
 * Instagram takes JPEG images only (IG User Media reference, "Image Specifications": "Format:
 * JPEG", https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media;
 * a PNG or a WebP is refused with 36001/2207005,
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes):
 * every other image is sent as its JPEG rendition when the engine can make one (`asJpeg`).
 */
export const needsJpeg = (media: PublishMedia): boolean =>
  media.record.kind === "image" && media.record.mime !== "image/jpeg" && media.asJpeg !== undefined

/** The media with each image Instagram cannot take replaced by its JPEG rendition. */
export const jpegMedia = (media: ReadonlyArray<PublishMedia>) =>
  Effect.forEach(media, (m) => (needsJpeg(m) ? m.asJpeg! : Effect.succeed(m)))

/** The conversions a target's media need, as its details record them. */
const conversions = (media: ReadonlyArray<PublishMedia>): TargetDetails.TargetDetails | undefined => {
  const converted = media.filter(needsJpeg).map((m) => ({ media_id: m.record.id, from: m.record.mime, to: "image/jpeg" }))
  return converted.length === 0 ? undefined : { converted }
}

/**
 * Creates the adapter. The images converted are recorded in the target's state as its `details`
 * (`TargetDetails`), carried through every later step, the checkpoint and the permalink lookup.
 */
export const make = (config: Config, wire: Wire): ContainerPublishing.ContainerAdapter => {
  const adapter = makeContainers(config, wire)
  const keep = (details: TargetDetails.TargetDetails | undefined) => ({
    step: <A extends { readonly state: unknown }>(step: A): A => ({ ...step, state: TargetDetails.withState(step.state, details) }),
    failure: (f: PlatformFailure) =>
      details === undefined || f.state === undefined ? f : amend(f, { state: TargetDetails.withState(f.state, details) })
  })
  return {
    ...adapter,
    publish: (input) => {
      // Only the first step sends media addresses (later ones poll and publish containers).
      const first = input.state === null || input.state === undefined
      const details = first ? conversions(input.media) : TargetDetails.fromState(input.state)
      if (details === undefined) return adapter.publish(input)
      const { failure, step } = keep(details)
      const checkpoint = input.checkpoint
      const carried: PublishInput = {
        ...input,
        ...(checkpoint === undefined ? {} : { checkpoint: (state: unknown) => checkpoint(TargetDetails.withState(state, details)) })
      }
      const run = first
        ? Effect.flatMap(jpegMedia(input.media), (media) => adapter.publish({ ...carried, media }))
        : adapter.publish(carried)
      return run.pipe(Effect.map(step), Effect.mapError(failure))
    },
    permalink: (input) => {
      const { failure, step } = keep(TargetDetails.fromState(input.state))
      return adapter.permalink(input).pipe(
        Effect.map((lookup) => (lookup._tag === "Found" ? step(lookup) : lookup)),
        Effect.mapError(failure)
      )
    }
  }
}

const makeContainers = (config: Config, wire: Wire): ContainerPublishing.ContainerAdapter =>
  ContainerPublishing.make(
    {
      platform: "photo",
      mediaEdge: "media",
      // Stories are not listed on `media` but on `stories` (for 24 hours), and carry no caption.
      listing: (input) =>
        input.target.options.photo?.type === "story" ? { edge: "stories", caption: undefined } : { edge: "media", caption: input.post.caption },
      publishEdge: "media_publish",
      limitEdge: "content_publishing_limit",
      captionField: "caption",
      statusFields: "status_code,status",
      readStatus,
      containerError,
      plan,
      defaultQuota: rules.dailyQuota,
      rules,
      refreshGrantType: "ig_refresh_token"
    },
    { ...config, appSecret: proofSecret(config) },
    wire
  )
