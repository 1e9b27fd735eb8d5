/**
 * The professional adapter: LinkedIn's Posts API with the Images and Videos APIs.
 *
 * Steps: the media are uploaded first (an image: `initializeUpload`, then one PUT of its bytes;
 * a video: `initializeUpload` with its size, a PUT of each part whose `ETag` is kept, then
 * `finalizeUpload` with the parts' ETags in order), and polled until LinkedIn says `AVAILABLE`.
 * Then, right after a checkpoint, one `POST /rest/posts`; the post's URN comes back in the
 * `x-restli-id` header. A lost answer is never sent again: the next step lists the author's
 * recent posts (`GET /rest/posts?author=…&q=author`) and finds the post by its media URN, or,
 * for text and article posts, by its commentary; not found within `lookupWindowMs`, the target
 * ends `publish_unconfirmed`.
 *
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api
 *
 * The account's `externalId` is its author URN: `urn:li:person:{id}` or
 * `urn:li:organization:{id}`.
 *
 * @since 0.5.0
 */
import type { AccountRecord, PlatformFailure, PublishInput, PublishMedia, PublishStep } from "@postwire/core"
import { TargetRules } from "@postwire/domain"
import { Clock, Effect, Redacted } from "effect"
import { HttpClientRequest } from "effect/http"
import * as MediaRules from "../internal/MediaRules.ts"
import * as TokenSession from "../internal/TokenSession.ts"
import { amend, failure, field, malformed, numberField, retrying, stringField, type Wire } from "../internal/Wire.ts"
import type { PlatformPublisher } from "../Plugin.ts"
import * as Commentary from "./Commentary.ts"
import * as Api from "./LinkedInApi.ts"
import * as Creds from "./LinkedInCredentials.ts"
import * as Options from "./Options.ts"
import { rules } from "./Rules.ts"

/** LinkedIn's publishing settings (see the package README and docs/accounts.md). */
export interface Config extends Api.RestSettings {
  /** The token endpoint, for apps with programmatic refresh; `null` turns refreshing off. */
  readonly tokenUrl: string | null
  /** The app's client id and secret (refreshing a token needs them). */
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Wait between status checks of an upload, and between looks for a post whose answer was lost. */
  readonly pollIntervalMs: number
  /** How long after a lost answer the author's posts are searched before `publish_unconfirmed`. */
  readonly lookupWindowMs: number
  /** How many of the author's latest posts a look reads. */
  readonly lookupCount: number
}

/** Defaults: the production hosts and version 202610 (override with `POSTWIRE_LINKEDIN_VERSION`). */
export const defaults: Config = {
  apiUrl: "https://api.linkedin.com",
  version: "202610",
  tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
  clientId: "",
  clientSecret: Redacted.make(""),
  pollIntervalMs: 5_000,
  lookupWindowMs: 10 * 60_000,
  lookupCount: 20
}

/** The public address of a post (`urn:li:share:…` or `urn:li:ugcPost:…`). */
export const permalink = (urn: string): string => `https://www.linkedin.com/feed/update/${urn}`

/** Where a target's publishing stands between steps. */
type State =
  | { readonly phase: "processing"; readonly kind: "image" | "video"; readonly assets: ReadonlyArray<string> }
  | { readonly phase: "sent"; readonly sentAt: number; readonly assets: ReadonlyArray<string> }

const isState = (value: unknown): value is State => {
  const phase = field(value, "phase")
  return (phase === "processing" || phase === "sent") && Array.isArray(field(value, "assets"))
}

/** An account's token session. */
export type Session = TokenSession.TokenSession<Creds.ProfessionalCredentials>


/**
 * The refresh of an account's token through LinkedIn's token endpoint (`grant_type=refresh_token`,
 * https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens),
 * made once per publisher (it deduplicates concurrent refreshes of one token).
 */
export const refresher = (config: Config, wire: Wire): TokenSession.Refresh<Creds.ProfessionalCredentials> =>
  TokenSession.makeRefresher<Creds.ProfessionalCredentials>(
    (credentials) =>
      Effect.gen(function* () {
        const refreshToken = credentials.refresh_token
        if (config.tokenUrl === null || refreshToken === undefined) {
          return yield* Effect.fail(failure("token_expired", "no_refresh_token", { needsReconnect: true }))
        }
        const now = yield* Clock.currentTimeMillis
        if (credentials.refresh_expires_at !== undefined && credentials.refresh_expires_at <= now) {
          return yield* Effect.fail(failure("token_expired", "refresh_token_expired", { needsReconnect: true }))
        }
        const response = yield* wire.send(
          HttpClientRequest.post(config.tokenUrl).pipe(
            HttpClientRequest.bodyUrlParams({
              grant_type: "refresh_token",
              refresh_token: refreshToken,
              client_id: config.clientId,
              client_secret: Redacted.value(config.clientSecret)
            })
          )
        )
        if (response.status >= 500 || response.status === 429) return yield* Effect.fail(failure("platform_unavailable", `http_${response.status}`))
        const accessToken = stringField(response.json, "access_token")
        if (accessToken === undefined) {
          return yield* Effect.fail(
            failure("token_expired", stringField(response.json, "error") ?? `http_${response.status}`, { needsReconnect: true })
          )
        }
        const expiresIn = numberField(response.json, "expires_in")
        const refreshExpiresIn = numberField(response.json, "refresh_token_expires_in")
        return {
          ...credentials,
          access_token: accessToken,
          ...(expiresIn === undefined ? {} : { expires_at: now + expiresIn * 1000 }),
          refresh_token: stringField(response.json, "refresh_token") ?? refreshToken,
          ...(refreshExpiresIn === undefined ? {} : { refresh_expires_at: now + refreshExpiresIn * 1000 })
        }
      }),
    Creds.encode
  )


/** Opens an account's token session for one step: its author URN and credentials. */
export const openSession = (config: Config, refresh: TokenSession.Refresh<Creds.ProfessionalCredentials>, account: AccountRecord) =>
  Effect.gen(function* () {
    const author = account.externalId
    if (author === null || author === undefined || !author.startsWith("urn:li:")) {
      return yield* Effect.fail(failure("token_expired", "author_urn_missing", { needsReconnect: true }))
    }
    const credentials = yield* Creds.decode(account.credentials)
    const session = yield* TokenSession.make({
      accountId: account.id,
      credentials,
      refresh: config.tokenUrl === null || credentials.refresh_token === undefined ? null : refresh,
      encode: Creds.encode
    })
    const now = yield* Clock.currentTimeMillis
    const expired = credentials.expires_at !== undefined && credentials.expires_at <= now
    return { author, session, expired }
  })

/** One REST call inside a session; a refusal fails with the normalized code. */
export const caller =
  (wire: Wire, settings: Api.RestSettings) =>
  (session: Session, request: (token: string) => HttpClientRequest.HttpClientRequest) =>
    session.authed((credentials) =>
      Effect.gen(function* () {
        const response = yield* wire.send(request(credentials.access_token))
        if (Api.ok(response)) return response
        return yield* Effect.fail(Api.refusal(response, yield* Clock.currentTimeMillis, settings.version))
      })
    )

/** Creates the adapter. */
export const make = (config: Config, wire: Wire): PlatformPublisher => {
  const retry = retrying(wire.retry)

  const call = caller(wire, config)
  const refresh = refresher(config, wire)

  const uploadImage = (session: Session, author: string, media: PublishMedia) =>
    Effect.gen(function* () {
      const init = yield* retry(
        call(session, (token) =>
          Api.rest(config, "POST", "images", token, { query: { action: "initializeUpload" }, body: { initializeUploadRequest: { owner: author } } })
        )
      )
      const value = field(init.json, "value")
      const uploadUrl = stringField(value, "uploadUrl")
      const image = stringField(value, "image")
      if (uploadUrl === undefined || image === undefined) return yield* Effect.fail(malformed("images.initializeUpload"))
      const bytes = yield* media.read
      yield* retry(
        call(session, (token) =>
          HttpClientRequest.put(uploadUrl).pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.bodyUint8Array(bytes, media.record.mime))
        )
      )
      return image
    })

  const uploadVideo = (session: Session, author: string, media: PublishMedia) =>
    Effect.gen(function* () {
      const bytes = yield* media.read
      const init = yield* retry(
        call(session, (token) =>
          Api.rest(config, "POST", "videos", token, {
            query: { action: "initializeUpload" },
            body: { initializeUploadRequest: { owner: author, fileSizeBytes: bytes.byteLength, uploadCaptions: false, uploadThumbnail: false } }
          })
        )
      )
      const value = field(init.json, "value")
      const video = stringField(value, "video")
      const instructions = field(value, "uploadInstructions")
      if (video === undefined || !Array.isArray(instructions) || instructions.length === 0) {
        return yield* Effect.fail(malformed("videos.initializeUpload"))
      }
      const etags: Array<string> = []
      for (const instruction of instructions) {
        const uploadUrl = stringField(instruction, "uploadUrl")
        const first = numberField(instruction, "firstByte")
        const last = numberField(instruction, "lastByte")
        if (uploadUrl === undefined || first === undefined || last === undefined) return yield* Effect.fail(malformed("videos.uploadInstructions"))
        const part = bytes.subarray(first, last + 1)
        const response = yield* retry(
          call(session, () =>
            HttpClientRequest.put(uploadUrl).pipe(HttpClientRequest.bodyUint8Array(part, "application/octet-stream"))
          )
        )
        const etag = response.headers?.etag
        if (etag === undefined) return yield* Effect.fail(malformed("videos.upload.etag"))
        etags.push(etag)
      }
      yield* retry(
        call(session, (token) =>
          Api.rest(config, "POST", "videos", token, {
            query: { action: "finalizeUpload" },
            body: { finalizeUploadRequest: { video, uploadToken: stringField(value, "uploadToken") ?? "", uploadedPartIds: etags } }
          })
        )
      )
      return video
    })

  /** `AVAILABLE`, `PROCESSING_FAILED` or still processing, for every uploaded asset. */
  const processing = (session: Session, state: Extract<State, { phase: "processing" }>) =>
    Effect.gen(function* () {
      let ready = true
      for (const urn of state.assets) {
        const response = yield* retry(call(session, (token) => Api.rest(config, "GET", `${state.kind === "video" ? "videos" : "images"}/${Api.urnPath(urn)}`, token)))
        const status = stringField(response.json, "status")
        if (status === "PROCESSING_FAILED") {
          return yield* Effect.fail(
            failure("media_invalid", `PROCESSING_FAILED:${stringField(response.json, "processingFailureReason") ?? urn}`, {
              details: { platform: Api.platform },
              state: null,
              notPublished: true
            })
          )
        }
        if (status !== "AVAILABLE") ready = false
      }
      return ready
    })

  const postBody = (input: PublishInput, author: string, assets: ReadonlyArray<string>) => {
    const options = Options.read(input.target.options)
    const content =
      options.link !== undefined
        ? {
            article: {
              source: options.link.url,
              ...(assets[0] === undefined ? {} : { thumbnail: assets[0] }),
              ...(options.link.title === undefined ? {} : { title: options.link.title }),
              ...(options.link.description === undefined ? {} : { description: options.link.description })
            }
          }
        : assets.length === 1
          ? { media: { id: assets[0] } }
          : assets.length > 1
            ? { multiImage: { images: assets.map((id) => ({ id })) } }
            : undefined
    return {
      author,
      commentary: Commentary.fromCaption(input.post.caption),
      visibility: options.visibility ?? "PUBLIC",
      distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(content === undefined ? {} : { content }),
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false
    }
  }

  /** Checkpoints, then creates the post: exactly once. */
  const send = (input: PublishInput, session: Session, author: string, assets: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const sent: State = { phase: "sent", sentAt: yield* Clock.currentTimeMillis, assets }
      if (input.checkpoint !== undefined) yield* input.checkpoint(sent)
      // Not retried within the step: a 5xx or a lost answer may have created the post; the next
      // step looks for it instead.
      const answer = yield* call(session, (token) => Api.rest(config, "POST", "posts", token, { body: postBody(input, author, assets) })).pipe(
        Effect.map((response) => ({ _tag: "Answered", response }) as const),
        Effect.catchIf(
          (f) => f.code === "platform_unavailable" && f.retryAt === undefined,
          // No answer, or a 5xx: the post may exist. Look for it next, never send it again.
          () => Effect.succeed({ _tag: "Unknown" } as const)
        ),
        // LinkedIn answered with a refusal (throttling included): nothing was posted.
        Effect.mapError((f) => amend(f, { notPublished: true, state: null }))
      )
      if (answer._tag === "Unknown") return { _tag: "InProgress", state: sent, pollAfterMs: config.pollIntervalMs } satisfies PublishStep
      const urn = answer.response.headers?.["x-restli-id"] ?? stringField(answer.response.json, "id")
      if (urn === undefined) return { _tag: "InProgress", state: sent, pollAfterMs: config.pollIntervalMs } satisfies PublishStep
      return { _tag: "Published", platformPostId: urn, permalink: permalink(urn), state: { urn } } satisfies PublishStep
    })

  /** Whether a listed post carries the first of `assets` (an upload is used by one post only). */
  const hasAsset = (assets: ReadonlyArray<string>) => (element: unknown) => {
    const content = field(element, "content")
    const single = stringField(field(content, "media"), "id")
    const thumbnail = stringField(field(content, "article"), "thumbnail")
    const images = field(field(content, "multiImage"), "images")
    const ids = [single, thumbnail, ...(Array.isArray(images) ? images.map((i) => stringField(i, "id")) : [])]
    return ids.includes(assets[0])
  }

  /** Whether a listed post is the one this target sent. */
  const isTarget = (input: PublishInput, assets: ReadonlyArray<string>) => (element: unknown) => {
    const content = field(element, "content")
    if (assets.length > 0) return hasAsset(assets)(element)
    const link = Options.read(input.target.options).link
    if (link !== undefined && stringField(field(content, "article"), "source") !== link.url) return false
    const commentary = stringField(element, "commentary")
    return commentary !== undefined && Commentary.toCaption(commentary) === input.post.caption
  }

  /** After a lost answer: the author's recent posts, searched for this target's post. */
  /** The author's latest posts (newest first). */
  const latestPosts = (session: Session, author: string) =>
    retry(
      call(session, (token) =>
        Api.rest(config, "GET", "posts", token, {
          query: { author, q: "author", count: String(config.lookupCount), sortBy: "LAST_MODIFIED" }
        })
      )
    )

  /**
   * Before posting uploaded media: the post already made with them, if any (a step that posted
   * and was taken again from an older state). An app that may not list the author's posts
   * relies on the checkpoint alone.
   */
  const alreadyPosted = (session: Session, author: string, assets: ReadonlyArray<string>) =>
    latestPosts(session, author).pipe(
      Effect.map((response) => {
        const elements = field(response.json, "elements")
        return stringField(Array.isArray(elements) ? elements.find(hasAsset(assets)) : undefined, "id")
      }),
      Effect.catchIf(
        (f) => f.code === "permission_missing",
        () => Effect.succeed(undefined)
      )
    )

  const lookUp = (input: PublishInput, session: Session, author: string, state: Extract<State, { phase: "sent" }>) =>
    Effect.gen(function* () {
      const response = yield* latestPosts(session, author).pipe(
        Effect.catchIf(
          (f) => f.code === "permission_missing",
          (f) =>
            // Listing a member's posts needs r_member_social (a page's r_organization_social): an
            // app without it cannot know, and must not post again.
            Effect.fail(
              failure("publish_unconfirmed", `lookup_refused:${f.platformCode}`, {
                details: { platform: Api.platform, sent_at: new Date(state.sentAt).toISOString() },
                state,
                gaveUp: true
              })
            )
        )
      )
      const elements = field(response.json, "elements")
      const found = Array.isArray(elements) ? elements.find(isTarget(input, state.assets)) : undefined
      const urn = stringField(found, "id")
      if (urn !== undefined) {
        return { _tag: "Published", platformPostId: urn, permalink: permalink(urn), state: { urn } } satisfies PublishStep
      }
      const now = yield* Clock.currentTimeMillis
      if (now - state.sentAt < config.lookupWindowMs) {
        return { _tag: "InProgress", state, pollAfterMs: config.pollIntervalMs } satisfies PublishStep
      }
      return yield* Effect.fail(
        failure("publish_unconfirmed", "post_not_found_after_window", {
          details: { platform: Api.platform, sent_at: new Date(state.sentAt).toISOString() },
          state,
          gaveUp: true
        })
      )
    })

  const captionFailure = (caption: string): PlatformFailure | undefined => {
    const length = TargetRules.captionLength(rules, caption)
    return length > rules.captionMax
      ? failure("caption_too_long", "caption_rules", { details: { limit: rules.captionMax, platform: Api.platform }, state: null, notPublished: true })
      : undefined
  }

  const step = (input: PublishInput, session: Session, author: string): Effect.Effect<PublishStep, PlatformFailure> =>
    Effect.gen(function* () {
      const state = isState(input.state) ? input.state : undefined
      if (state?.phase === "sent") return yield* lookUp(input, session, author, state)
      if (state?.phase === "processing") {
        if (!(yield* processing(session, state))) return { _tag: "InProgress", state, pollAfterMs: config.pollIntervalMs } satisfies PublishStep
        const posted = yield* alreadyPosted(session, author, state.assets)
        if (posted !== undefined) return { _tag: "Published", platformPostId: posted, permalink: permalink(posted), state: { urn: posted } } satisfies PublishStep
        return yield* send(input, session, author, state.assets)
      }
      const broken = captionFailure(input.post.caption) ?? MediaRules.check(input, rules)
      if (broken !== undefined) return yield* Effect.fail(amend(broken, { notPublished: true }))
      if (input.media.length === 0) return yield* send(input, session, author, [])
      const video = input.media.find((m) => m.record.kind === "video")
      const assets =
        video !== undefined
          ? [yield* uploadVideo(session, author, video)]
          : yield* Effect.forEach(input.media, (media) => uploadImage(session, author, media))
      const processingState: State = { phase: "processing", kind: video === undefined ? "image" : "video", assets }
      return { _tag: "InProgress", state: processingState, pollAfterMs: 0 } satisfies PublishStep
    })

  return {
    publish: (input) =>
      Effect.gen(function* () {
        const { author, session, expired } = yield* openSession(config, refresh, input.account)
        return yield* TokenSession.withCredentials(
          session,
          Effect.gen(function* () {
            if (expired) yield* session.refreshNow
            return yield* step(input, session, author)
          })
        )
      })
  }
}
