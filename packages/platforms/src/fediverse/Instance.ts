/**
 * A Mastodon server's limits, read from `GET /api/v2/instance`
 * (https://docs.joinmastodon.org/methods/instance/#v2; fields of
 * https://docs.joinmastodon.org/entities/Instance/#configuration) and kept per server for an
 * hour: a publish checks its text and media against them before anything is sent. A field the
 * server leaves out takes Mastodon's default ({@link Rules.defaultLimits}).
 *
 * @internal
 */
import type { PlatformFailure } from "@postwire/core"
import { Clock, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { failure, field, numberField, type Wire } from "../internal/Wire.ts"
import { type InstanceLimits, defaultLimits } from "./Rules.ts"

/** How long a server's limits are kept before they are read again. */
export const cacheMs = 60 * 60 * 1000

/** Reads the limits of an `/api/v2/instance` answer. */
export const limitsOf = (body: unknown): InstanceLimits => {
  const configuration = field(body, "configuration")
  const statuses = field(configuration, "statuses")
  const media = field(configuration, "media_attachments")
  const types = field(media, "supported_mime_types")
  const positive = (value: number | undefined, fallback: number) => (value !== undefined && value > 0 ? value : fallback)
  return {
    maxCharacters: positive(numberField(statuses, "max_characters"), defaultLimits.maxCharacters),
    charactersPerUrl: numberField(statuses, "characters_reserved_per_url") ?? defaultLimits.charactersPerUrl,
    maxMediaAttachments: positive(numberField(statuses, "max_media_attachments"), defaultLimits.maxMediaAttachments),
    imageSizeLimit: positive(numberField(media, "image_size_limit"), defaultLimits.imageSizeLimit),
    videoSizeLimit: positive(numberField(media, "video_size_limit"), defaultLimits.videoSizeLimit),
    imageMatrixLimit: positive(numberField(media, "image_matrix_limit"), defaultLimits.imageMatrixLimit),
    videoMatrixLimit: positive(numberField(media, "video_matrix_limit"), defaultLimits.videoMatrixLimit),
    descriptionLimit: positive(numberField(media, "description_limit"), defaultLimits.descriptionLimit),
    supportedMimeTypes: Array.isArray(types) ? types.filter((t): t is string => typeof t === "string") : defaultLimits.supportedMimeTypes
  }
}

/** A per-server cache of limits. */
export interface InstanceCache {
  /** The server's limits: from the cache while fresh, else read (`/api/v2/instance` is public). */
  readonly limits: (server: string) => Effect.Effect<InstanceLimits, PlatformFailure>
}

/** Creates a cache over the wire. */
export const make = (wire: Wire): InstanceCache => {
  const cache = new Map<string, { readonly limits: InstanceLimits; readonly at: number }>()
  return {
    limits: (server) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const cached = cache.get(server)
        if (cached !== undefined && now - cached.at < cacheMs) return cached.limits
        const response = yield* wire.send(HttpClientRequest.get(`${server}/api/v2/instance`).pipe(HttpClientRequest.acceptJson))
        if (response.status < 200 || response.status >= 300 || typeof field(response.json, "configuration") !== "object") {
          return yield* Effect.fail(failure("platform_unavailable", `instance_${response.status}`, { retryable: true }))
        }
        const limits = limitsOf(response.json)
        cache.set(server, { limits, at: now })
        return limits
      })
  }
}
