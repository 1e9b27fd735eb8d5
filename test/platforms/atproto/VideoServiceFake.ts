/**
 * A fake Bluesky video service speaking the `app.bsky.video.*` lexicons over XRPC, in front of a
 * fake PDS: `getUploadLimits` (a service-auth token for the method, audience the service's DID),
 * `uploadVideo?did=&name=` (a token for `com.atproto.repo.uploadBlob` whose audience is the
 * account's PDS; answers a `jobStatus`), and `getJobStatus?jobId=` (no auth), which reports the
 * job in process (`JOB_STATE_ENCODING`) for `checksBeforeDone` checks, then
 * `JOB_STATE_COMPLETED` with the blob it stored on the PDS, or `JOB_STATE_FAILED` with an error.
 * https://github.com/bluesky-social/atproto/tree/main/lexicons/app/bsky/video
 * https://docs.bsky.app/docs/tutorials/video
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "../fakes/FakeServer.ts"
import type { PdsFake } from "./PdsFake.ts"

/** The fake video service. */
export interface VideoServiceFake extends FakeServer {
  readonly did: string
  /** Jobs by id. */
  readonly jobs: Map<string, { readonly did: string; readonly name: string; readonly size: number; checks: number; blob?: unknown }>
  /** Status checks a job answers "in process" before it ends. */
  checksBeforeDone: number
  /** The job ends `JOB_STATE_FAILED` with this error instead of completing. */
  failWith: string | undefined
  /** `getUploadLimits` says the account may not upload (daily limit reached). */
  limitReached: boolean
}

const error = (status: number, name: string, message: string): FakeReply => ({ status, json: { error: name, message } })

/** Starts the fake; the blobs of finished jobs go to `pds`. */
export const make = (pds: PdsFake) =>
  Effect.gen(function* () {
    let fake!: VideoServiceFake
    const token = (request: FakeRequest, lxm: string, aud: string): FakeReply | undefined => {
      const bearer = (request.headers.authorization ?? "").replace(/^Bearer /, "")
      const claims = pds.serviceTokens.get(bearer)
      if (claims === undefined) return error(401, "AuthMissing", "Authentication Required")
      if (claims.lxm !== lxm) return error(401, "BadJwtLexiconMethod", `expected lxm ${lxm}`)
      if (claims.aud !== aud) return error(401, "BadJwtAudience", `expected aud ${aud}`)
      return undefined
    }
    const status = (jobId: string) => {
      const job = fake.jobs.get(jobId)!
      const done = job.checks >= fake.checksBeforeDone
      if (done && fake.failWith !== undefined) {
        return { jobId, did: job.did, state: "JOB_STATE_FAILED", error: fake.failWith, message: "Video could not be processed" }
      }
      if (done) {
        if (job.blob === undefined) {
          // The service stores the processed video on the account's PDS.
          const link = `bafkrei${createHash("sha256").update(jobId).digest("hex").slice(0, 52)}`
          pds.blobs.set(link, { mimeType: "video/mp4", size: job.size })
          job.blob = { $type: "blob", ref: { $link: link }, mimeType: "video/mp4", size: job.size }
        }
        return { jobId, did: job.did, state: "JOB_STATE_COMPLETED", progress: 100, blob: job.blob }
      }
      return { jobId, did: job.did, state: "JOB_STATE_ENCODING", progress: Math.min(99, job.checks * 30) }
    }
    const server = yield* start({
      route: (request) =>
        ({
          "/xrpc/app.bsky.video.getUploadLimits": "limits",
          "/xrpc/app.bsky.video.uploadVideo": "uploadVideo",
          "/xrpc/app.bsky.video.getJobStatus": "jobStatus"
        })[request.path] ?? "unknown",
      handle: (route, request) => {
        switch (route) {
          case "limits": {
            const refused = token(request, "app.bsky.video.getUploadLimits", fake.did)
            if (refused !== undefined) return refused
            return {
              status: 200,
              json: fake.limitReached
                ? { canUpload: false, remainingDailyVideos: 0, remainingDailyBytes: 0, error: "Daily video limit reached", message: "You have reached your daily video limit" }
                : { canUpload: true, remainingDailyVideos: 25, remainingDailyBytes: 10_737_418_240 }
            }
          }
          case "uploadVideo": {
            const refused = token(request, "com.atproto.repo.uploadBlob", `did:web:${new URL(pds.url).hostname}`)
            if (refused !== undefined) return refused
            const did = request.query.get("did") ?? ""
            const name = request.query.get("name") ?? ""
            if (did !== pds.did || name === "") return error(400, "InvalidRequest", "did and name are required")
            if (request.headers["content-type"] !== "video/mp4") return error(400, "InvalidRequest", "expected video/mp4")
            const jobId = `job${fake.jobs.size + 1}`
            fake.jobs.set(jobId, { did, name, size: Buffer.byteLength(request.body), checks: 0 })
            return { status: 200, json: { jobStatus: { jobId, did, state: "JOB_STATE_CREATED" } } }
          }
          case "jobStatus": {
            const jobId = request.query.get("jobId") ?? ""
            const job = fake.jobs.get(jobId)
            if (job === undefined) return error(400, "InvalidRequest", "job not found")
            job.checks += 1
            return { status: 200, json: { jobStatus: status(jobId) } }
          }
        }
        return error(501, "MethodNotImplemented", "Method Not Implemented")
      }
    })
    fake = Object.assign(server, {
      did: "did:web:video.example",
      jobs: new Map(),
      checksBeforeDone: 2,
      failWith: undefined,
      limitReached: false
    }) as VideoServiceFake
    return fake
  })
