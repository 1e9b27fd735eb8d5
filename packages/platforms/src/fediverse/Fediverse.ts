/**
 * Publishing to a Mastodon server (wire word `fediverse`):
 *
 * 1. The server's limits are read from `/api/v2/instance` (cached an hour per server) and the
 *    text, content warning and media are checked against them: a break ends the target before
 *    anything is sent (`notPublished`).
 * 2. Each file is uploaded with `POST /api/v2/media` (multipart `file`, and `description` when
 *    the target's `alt` gives one for it; https://docs.joinmastodon.org/methods/media/#v2). `200` means processed; `202` means
 *    "accepted, still processing" (`url` is `null`): the attachment is asked for again with
 *    `GET /api/v1/media/:id` (`206` while processing, `200` when done,
 *    https://docs.joinmastodon.org/methods/media/#get) every `pollIntervalMs`, at most
 *    `maxMediaChecks` times. A status cannot name an attachment still processing (422).
 * 3. The status is sent with `POST /api/v1/statuses` (https://docs.joinmastodon.org/methods/statuses/#create):
 *    `status`, `media_ids[]`, the target's options (`visibility`, `spoiler_text`, `sensitive`,
 *    `language`), and the header `Idempotency-Key: postwire-{target id}`: "Provide this header
 *    with any arbitrary string to prevent duplicate submissions of the same status … Idempotency
 *    keys are stored for up to 1 hour" (same page). The publisher checkpoints first.
 *
 * ## A lost answer
 *
 * Resumed after the checkpoint, the step first looks: the account's recent statuses
 * (`GET /api/v1/accounts/:id/statuses`, https://docs.joinmastodon.org/methods/accounts/#statuses)
 * made since the checkpoint, matched by their attachments or their text. Not found and still
 * within the key's hour (less a margin, `idempotencyWindowMs`), the status is sent again with
 * the same `Idempotency-Key`: the server answers with the status the first call made, if it made
 * one, and makes it once otherwise. Past that window, a status never found ends the target with
 * `publish_unconfirmed` (`gaveUp`).
 *
 * @since 0.5.0
 */
import type { PublishInput, PublishStep, UrlSafety } from "@postwire/core"
import type { TargetRules } from "@postwire/domain"
import { Clock, Effect, Schema } from "effect"
import { HttpClientRequest } from "effect/http"
import type { PlatformPublisher } from "../Plugin.ts"
import { failure, field, malformed, stringField, type Wire } from "../internal/Wire.ts"
import * as Api from "./Api.ts"
import * as FediverseCredentials from "./FediverseCredentials.ts"
import * as Instance from "./Instance.ts"
import * as Options from "./Options.ts"
import { descriptionBreak, type InstanceLimits, mediaBreak, textLength } from "./Rules.ts"
import * as Reasons from "./Reasons.ts"

/** Publishing settings. */
export interface Config {
  /** Wait between checks of an attachment still processing (202). */
  readonly pollIntervalMs: number
  /** Checks of one publish's attachments before giving up (nothing was posted). */
  readonly maxMediaChecks: number
  /** How many recent statuses a lost answer's search reads (`limit`, at most 40). */
  readonly lookupLimit: number
  /** How long after the checkpoint the same `Idempotency-Key` is trusted (the server keeps it 1 hour). */
  readonly idempotencyWindowMs: number
  /** Servers on loopback are reached too (development and tests: the webhooks' loopback switch); see `PinnedWire.ts`. */
  readonly allowLoopback?: boolean | undefined
  /** Resolves a server's name before each call (the operating system's resolver by default); the answer is checked and pinned. */
  readonly resolver?: UrlSafety.Resolver["Service"] | undefined
}

/** Defaults: a check every 2 s for up to 5 minutes; the key trusted for 50 of its 60 minutes. */
export const defaults: Config = {
  pollIntervalMs: 2_000,
  maxMediaChecks: 150,
  lookupLimit: 40,
  idempotencyWindowMs: 50 * 60 * 1000
}

/** What a target's publish saves between steps. */
export const State = Schema.Union([
  Schema.Struct({
    phase: Schema.Literal("media"),
    /** Uploaded attachments, in the post's order, and whether each is processed. */
    media: Schema.Array(Schema.Struct({ id: Schema.String, ready: Schema.Boolean })),
    checks: Schema.Number
  }),
  Schema.Struct({
    phase: Schema.Literal("status"),
    media_ids: Schema.Array(Schema.String),
    /** The `Idempotency-Key` sent (and sent again). */
    key: Schema.String,
    /** When the checkpoint was made (epoch ms). */
    at: Schema.Number
  }),
  Schema.Struct({ phase: Schema.Literal("published"), /** The status id (`post_id`: where the comment routers look for it). */ post_id: Schema.String, url: Schema.NullOr(Schema.String) })
])
/** What a target's publish saves between steps. */
export type State = typeof State.Type

const decodeState = Schema.decodeUnknownExit(State)

/** The `Idempotency-Key` of a target: the same for every attempt of it. */
export const idempotencyKey = (targetId: string): string => `postwire-${targetId}`

const facts = (input: PublishInput): ReadonlyArray<TargetRules.MediaFacts> =>
  input.media.map(({ record }) => ({
    kind: record.kind,
    durationSeconds: record.durationSeconds,
    mime: record.mime,
    width: record.width,
    height: record.height,
    sizeBytes: record.sizeBytes
  }))

/** The first break of the server's limits by the post, as a failure that ends the target unsent. */
export const limitsFailure = (input: PublishInput, limits: InstanceLimits, options: Options.FediverseOptions) => {
  const length = textLength(input.post.caption, limits.charactersPerUrl) + textLength(options.spoiler_text ?? "", limits.charactersPerUrl)
  if (length > limits.maxCharacters) {
    return failure("caption_too_long", "text_character_limit", {
      details: { limit: limits.maxCharacters, platform: Api.platform },
      notPublished: true
    })
  }
  const long = descriptionBreak(options.alt ?? [], limits.descriptionLimit)
  if (long !== undefined) {
    return failure("media_invalid", "description_limit", {
      details: { platform: Api.platform, detail: Reasons.reason("fediverse_alt_too_long", { max: long.max, size: long.size }) },
      notPublished: true,
      retryable: false
    })
  }
  const broken = mediaBreak(Api.platform, limits, facts(input))
  return broken === undefined
    ? undefined
    : failure(broken.code, broken.rule, { details: broken.details, notPublished: true, retryable: false })
}

const extension: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/quicktime": "mov"
}

/** A `multipart/form-data` body of one file (and its fields), as `POST /api/v2/media` takes it. */
export const multipart = (
  file: { readonly bytes: Uint8Array; readonly filename: string; readonly mime: string },
  fields: Readonly<Record<string, string>> = {}
): { readonly body: Uint8Array; readonly contentType: string } => {
  const boundary = `postwire-${crypto.randomUUID()}`
  const encoder = new TextEncoder()
  const parts: Array<Uint8Array> = []
  for (const [name, value] of Object.entries(fields)) {
    parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  const filename = file.filename.replace(/["\r\n]/g, "_")
  parts.push(
    encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${file.mime}\r\n\r\n`),
    file.bytes,
    encoder.encode(`\r\n--${boundary}--\r\n`)
  )
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const part of parts) {
    body.set(part, offset)
    offset += part.length
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Whether an attachment answer is processed: `url` is set (a 202's is `null`). */
const processed = (body: unknown) => typeof field(body, "url") === "string"

/** Normalized text for matching a status found on the account with the post. */
const normalized = (text: string) => text.replace(/\s+/g, " ").trim()

/** Creates the publisher. */
export const make = (config: Config, wire: Wire, instances: Instance.InstanceCache = Instance.make(wire)): PlatformPublisher => {
  const upload = (session: Api.Session, media: PublishInput["media"][number], description: string | undefined) =>
    Effect.gen(function* () {
      const bytes = yield* media.read
      const { body, contentType } = multipart(
        {
          bytes,
          filename: media.record.filename ?? `${media.record.id}.${extension[media.record.mime] ?? "bin"}`,
          mime: media.record.mime
        },
        description === undefined || description === "" ? {} : { description }
      )
      const response = yield* Api.call(
        wire,
        session,
        HttpClientRequest.post(`${session.server}/api/v2/media`).pipe(HttpClientRequest.bodyUint8Array(body, contentType))
      ).pipe(
        Effect.mapError((f) =>
          f.code === "content_rejected" || f.code === "media_invalid" ? failure("media_invalid", f.platformCode, { details: f.details, notPublished: true }) : f
        )
      )
      const id = stringField(response.json, "id")
      if (id === undefined) return yield* Effect.fail(malformed("media id"))
      return { id, ready: response.status === 200 && processed(response.json) }
    })

  /** Asks for one attachment still processing: `206` still processing, `200` done. */
  const check = (session: Api.Session, id: string) =>
    Api.call(wire, session, Api.get(session, `/api/v1/media/${encodeURIComponent(id)}`), (r) => r.status === 200 || r.status === 206).pipe(
      Effect.map((response) => response.status === 200 && processed(response.json)),
      Effect.mapError((f) => (f.platformCode === "http_404" ? failure("media_invalid", "media_processing_failed", { notPublished: true }) : f))
    )

  const published = (body: unknown): Effect.Effect<PublishStep, ReturnType<typeof malformed>> => {
    const id = stringField(body, "id")
    if (id === undefined) return Effect.fail(malformed("status id"))
    const url = stringField(body, "url") ?? stringField(body, "uri") ?? null
    return Effect.succeed({ _tag: "Published", platformPostId: id, permalink: url, state: { phase: "published", post_id: id, url } })
  }

  const sendStatus = (input: PublishInput, session: Api.Session, state: Extract<State, { phase: "status" }>) => {
    const options = Options.read(input.target.options)
    return Api.publishing(
      wire,
      session,
      Api.post(session, "/api/v1/statuses", {
        status: input.post.caption,
        "media_ids[]": state.media_ids.length === 0 ? undefined : state.media_ids,
        visibility: options.visibility,
        spoiler_text: options.spoiler_text,
        sensitive: options.sensitive === undefined ? undefined : String(options.sensitive),
        language: options.language
      }).pipe(HttpClientRequest.setHeader("Idempotency-Key", state.key))
    ).pipe(
      // The answer may be lost or the server may have failed after making it: resume from the checkpoint.
      Effect.mapError((f) => (f.notPublished === true ? f : Api.withState(f, state))),
      Effect.flatMap((response) => published(response.json))
    )
  }

  /** The status a lost answer made, if the account's recent statuses show it. */
  const lookUp = (input: PublishInput, session: Api.Session, accountId: string, state: Extract<State, { phase: "status" }>) =>
    Effect.gen(function* () {
      const response = yield* Api.call(
        wire,
        session,
        Api.get(session, `/api/v1/accounts/${encodeURIComponent(accountId)}/statuses`, { limit: String(config.lookupLimit), exclude_reblogs: "true" })
      )
      const items = Array.isArray(response.json) ? response.json : []
      const caption = normalized(input.post.caption)
      return items.find((item) => {
        const created = Date.parse(stringField(item, "created_at") ?? "")
        if (Number.isFinite(created) && created < state.at - 60_000) return false
        if (state.media_ids.length > 0) {
          const attachments = field(item, "media_attachments")
          const ids = Array.isArray(attachments) ? attachments.map((a) => stringField(a, "id")) : []
          return state.media_ids.every((id) => ids.includes(id))
        }
        return normalized(Api.plainText(stringField(item, "content") ?? "")) === caption
      })
    })

  const publish: PlatformPublisher["publish"] = (input) =>
    Effect.gen(function* () {
      const credentials = yield* FediverseCredentials.decode(input.account.credentials)
      const session: Api.Session = { server: credentials.server, token: credentials.access_token }
      const decoded = input.state === null || input.state === undefined ? undefined : decodeState(input.state)
      const state: State | undefined = decoded?._tag === "Success" ? decoded.value : undefined
      if (decoded !== undefined && state === undefined) return yield* Effect.fail(malformed("saved state"))

      if (state?.phase === "published") {
        return { _tag: "Published", platformPostId: state.post_id, permalink: state.url, state } satisfies PublishStep
      }

      if (state?.phase === "status") {
        // Resumed after the checkpoint: look first, then (within the key's hour) send the same key again.
        const found = yield* lookUp(input, session, credentials.account_id, state)
        if (found !== undefined) return yield* published(found)
        const now = yield* Clock.currentTimeMillis
        if (now - state.at >= config.idempotencyWindowMs) {
          return yield* Effect.fail(
            failure("publish_unconfirmed", "lost_answer_not_found", { gaveUp: true, retryable: false, state })
          )
        }
        if (input.checkpoint !== undefined) yield* input.checkpoint(state)
        return yield* sendStatus(input, session, state)
      }

      let media = state?.media ?? []
      let checks = state?.checks ?? 0
      if (state === undefined) {
        const limits = yield* instances.limits(session.server)
        const options = Options.read(input.target.options)
        const broken = limitsFailure(input, limits, options)
        if (broken !== undefined) return yield* Effect.fail(broken)
        const uploaded: Array<{ id: string; ready: boolean }> = []
        for (const [index, item] of input.media.entries()) uploaded.push(yield* upload(session, item, options.alt?.[index]))
        media = uploaded
      } else {
        const rechecked: Array<{ id: string; ready: boolean }> = []
        for (const item of media) rechecked.push(item.ready ? item : { id: item.id, ready: yield* check(session, item.id) })
        media = rechecked
        checks += 1
      }
      if (media.some((item) => !item.ready)) {
        if (checks >= config.maxMediaChecks) {
          return yield* Effect.fail(failure("media_invalid", "media_still_processing", { notPublished: true, retryable: true }))
        }
        return { _tag: "InProgress", state: { phase: "media", media, checks }, pollAfterMs: config.pollIntervalMs } satisfies PublishStep
      }
      const next = {
        phase: "status" as const,
        media_ids: media.map((item) => item.id),
        key: idempotencyKey(input.target.id),
        at: yield* Clock.currentTimeMillis
      }
      if (input.checkpoint !== undefined) yield* input.checkpoint(next)
      return yield* sendStatus(input, session, next)
    }).pipe(Effect.withSpan("platforms.fediverse.publish"))

  return { publish }
}
