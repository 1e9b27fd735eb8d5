/**
 * A Bluesky video through the video service, as Bluesky's app sends one: the service transcodes
 * it and stores the result on the account's PDS as a blob, which the post then embeds
 * (`app.bsky.embed.video`).
 * https://docs.bsky.app/docs/tutorials/video
 *
 * 1. `app.bsky.video.getUploadLimits` on the video service, with a service-auth token from the
 *    PDS (`com.atproto.server.getServiceAuth`, audience the video service's DID, method
 *    `app.bsky.video.getUploadLimits`): `canUpload: false` ends the target (`quota_exceeded`,
 *    the service's `error` as `platform_code`).
 * 2. `app.bsky.video.uploadVideo?did={did}&name={name}` with the bytes, a service-auth token whose
 *    audience is the account's PDS (`did:web:{PDS host}`) and whose method is
 *    `com.atproto.repo.uploadBlob`: the service stores the blob on the PDS with it. The answer is a
 *    `jobStatus` (`app.bsky.video.defs#jobStatus`).
 * 3. `app.bsky.video.getJobStatus?jobId=` every `pollIntervalMs` (the target is `InProgress` in
 *    between, its job id saved) until `JOB_STATE_COMPLETED` with its `blob`, or
 *    `JOB_STATE_FAILED` (the target fails `media_invalid`, not published, with the service's
 *    `error`); any other state is still in process. After `videoChecksMax` checks the target
 *    fails `video_processing_timeout`.
 *
 * Lexicons: https://github.com/bluesky-social/atproto/tree/main/lexicons/app/bsky/video
 * (`getUploadLimits.json`, `uploadVideo.json`, `getJobStatus.json`, `defs.json`) and
 * https://github.com/bluesky-social/atproto/blob/main/lexicons/com/atproto/server/getServiceAuth.json
 *
 * Without a video service (`videoServiceUrl: null`, a self-hosted network without one) the video
 * is uploaded to the PDS with `com.atproto.repo.uploadBlob`, as images are.
 *
 * Nothing here publishes: an upload whose answer is lost is made again on the next step, which at
 * worst leaves an unused blob; the post itself is created once, under its saved record key.
 *
 * @since 0.6.0
 */
import type { PlatformFailure, PublishMedia, PublishStep } from "@postwire/core"
import { Clock, Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { amend, failure, field, stringField, type Wire, type WireResponse } from "../internal/Wire.ts"
import * as Xrpc from "./Xrpc.ts"

/** The settings of the video path (a part of the publisher's `Config`). */
export interface VideoSettings {
  readonly videoServiceUrl: string | null
  readonly videoServiceDid: string
  readonly pollIntervalMs: number
  readonly videoChecksMax: number
}

/** The state of a target whose video is at the video service. */
export interface VideoJob {
  readonly phase: "video"
  readonly jobId: string
  /** Checks made so far. */
  readonly checks: number
}

/** Whether a saved state is a video job's. */
export const isVideoJob = (state: unknown): state is VideoJob =>
  stringField(state, "phase") === "video" && typeof stringField(state, "jobId") === "string"

/** A job's outcome for the publisher: the blob to embed, or the step to return. */
export type Outcome = { readonly _tag: "Ready"; readonly blob: unknown } | Extract<PublishStep, { _tag: "InProgress" }>

const notPublished = (f: PlatformFailure) => amend(f, { notPublished: true, state: null })

/** The `did:web` of the account's PDS, the audience of the token the video service stores the blob with. */
export const pdsDid = (service: string): string => `did:web:${new URL(service).hostname}`

/** Creates the video path over the publisher's settings. */
export const make = (settings: VideoSettings, wire: Wire) => {
  const serviceUrl = (settings.videoServiceUrl ?? "").replace(/\/+$/, "")

  /** A service-auth token from the PDS for one method of one audience, valid 30 minutes. */
  const serviceAuth = (session: Xrpc.Session, aud: string, lxm: string) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const response = yield* session.call({
        _tag: "query",
        nsid: "com.atproto.server.getServiceAuth",
        params: { aud, lxm, exp: String(Math.floor(now / 1000) + 30 * 60) }
      })
      const token = Xrpc.ok(response) ? stringField(response.json, "token") : undefined
      if (token !== undefined) return token
      if (Xrpc.ok(response)) return yield* Effect.fail(failure("platform_unavailable", "malformed_response:getServiceAuth"))
      return yield* Effect.fail(Xrpc.toFailure(response, now))
    })

  /** The job status of an answer, with the failure it means when it has none. */
  const statusOf = (response: WireResponse, what: string) =>
    Effect.gen(function* () {
      const status = field(response.json, "jobStatus")
      const jobId = stringField(status, "jobId")
      if (jobId !== undefined) return { jobId, state: stringField(status, "state") ?? "", blob: field(status, "blob"), error: stringField(status, "error") }
      const now = yield* Clock.currentTimeMillis
      if (Xrpc.ok(response)) return yield* Effect.fail(failure("platform_unavailable", `malformed_response:${what}`))
      return yield* Effect.fail(Xrpc.toFailure(response, now, "media_invalid"))
    })

  /** What a job status means for the target. */
  const outcome = (status: { jobId: string; state: string; blob: unknown; error: string | undefined }, checks: number): Effect.Effect<Outcome, PlatformFailure> => {
    if (status.state === "JOB_STATE_COMPLETED" && typeof status.blob === "object" && status.blob !== null) {
      return Effect.succeed({ _tag: "Ready", blob: status.blob })
    }
    if (status.state === "JOB_STATE_FAILED") {
      return Effect.fail(failure("media_invalid", status.error ?? "JOB_STATE_FAILED", { notPublished: true, state: null }))
    }
    if (checks >= settings.videoChecksMax) {
      return Effect.fail(failure("platform_unavailable", "video_processing_timeout", { notPublished: true, retryable: false, state: null }))
    }
    const state: VideoJob = { phase: "video", jobId: status.jobId, checks }
    return Effect.succeed({ _tag: "InProgress", state, pollAfterMs: settings.pollIntervalMs })
  }

  /** Checks the upload limits, uploads the video and answers its job (rarely ready at once). */
  const start = (session: Xrpc.Session, media: PublishMedia): Effect.Effect<Outcome, PlatformFailure> =>
    Effect.gen(function* () {
      const limitsToken = yield* serviceAuth(session, settings.videoServiceDid, "app.bsky.video.getUploadLimits")
      const limits = yield* wire.send(Xrpc.request(serviceUrl, { _tag: "query", nsid: "app.bsky.video.getUploadLimits", params: {} }, limitsToken))
      const now = yield* Clock.currentTimeMillis
      if (!Xrpc.ok(limits)) return yield* Effect.fail(Xrpc.toFailure(limits, now))
      if (field(limits.json, "canUpload") !== true) {
        const name = stringField(limits.json, "error") ?? "video_upload_limit"
        return yield* Effect.fail(notPublished(failure("quota_exceeded", name)))
      }
      const current = session.current()
      const uploadToken = yield* serviceAuth(session, pdsDid(current.service), "com.atproto.repo.uploadBlob")
      const bytes = yield* media.read
      const name = `${media.record.id}.mp4`
      const request = Xrpc.request(serviceUrl, { _tag: "upload", nsid: "app.bsky.video.uploadVideo", bytes, contentType: media.record.mime }, uploadToken)
      const uploaded = yield* wire.send(HttpClientRequest.setUrlParams(request, { did: current.did, name }))
      // The service answers a video it already has (409 `already_exists`) with that video's job.
      const status = yield* statusOf(uploaded, "uploadVideo").pipe(
        Effect.mapError((f) => (f.code === "platform_unavailable" || f.code === "token_expired" ? f : notPublished(f)))
      )
      return yield* outcome(status, 0)
    })

  /** Asks the video service how a job stands. */
  const check = (job: VideoJob): Effect.Effect<Outcome, PlatformFailure> =>
    Effect.gen(function* () {
      const response = yield* wire.send(Xrpc.request(serviceUrl, { _tag: "query", nsid: "app.bsky.video.getJobStatus", params: { jobId: job.jobId } }, undefined))
      const status = yield* statusOf(response, "getJobStatus").pipe(Effect.mapError((f) => amend(f, { state: job })))
      return yield* outcome(status, job.checks + 1)
    })

  return { start, check }
}
