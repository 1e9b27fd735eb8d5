/**
 * The Bluesky (`atproto`) publisher: an `app.bsky.feed.post` record in the account's repository.
 *
 * One step does it all: upload each image or the video (`com.atproto.repo.uploadBlob`), resolve
 * the mentioned handles (`com.atproto.identity.resolveHandle`), build the record (text, facets on
 * UTF-8 byte offsets, the embed), choose its record key (a TID), save it with the record
 * (`checkpoint`), then `com.atproto.repo.createRecord` with that `rkey`.
 * https://docs.bsky.app/docs/advanced-guides/posts
 * https://docs.bsky.app/docs/api/com-atproto-repo-create-record
 *
 * Exactly once: a step given the saved state reads the key back first
 * (`com.atproto.repo.getRecord`); found, the target is published; `RecordNotFound`, the same
 * record is created again under the same key, which the repository cannot hold twice: a post
 * never appears twice.
 *
 * The embed: up to 4 images (`app.bsky.embed.images`, alt text and aspect ratio), or one video
 * (`app.bsky.embed.video`, the blob uploaded to the PDS as the lexicon allows), or, without media,
 * a link card for the first link (`app.bsky.embed.external`) with the page's title, description
 * and image read under the outbound-address rules (`LinkCard`), or the bare link when the page
 * cannot be read.
 *
 * @since 0.5.0
 */
import type { PublishInput, PublishStep } from "@postwire/core"
import { Clock, Effect } from "effect"
import { amend, failure, field, stringField, type Wire } from "../internal/Wire.ts"
import * as Facets from "./Facets.ts"
import * as LinkCard from "./LinkCard.ts"
import { byteLength, rules, textBytesMax } from "./Rules.ts"
import * as Tid from "./Tid.ts"
import * as Video from "./Video.ts"
import * as Xrpc from "./Xrpc.ts"

/** Publishing settings. */
export interface Config {
  /** The web app's address for permalinks: `{webHost}/profile/{handle}/post/{rkey}`. */
  readonly webHost: string
  /** Read the linked page for the link card (title, description, image); `false`: bare cards. */
  readonly linkCards: boolean
  /** Let the link card reach loopback addresses (tests only; `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS`). */
  readonly linkCardAllowLoopback: boolean
  /** Time allowed to read the linked page (and its image), in milliseconds. */
  readonly linkCardTimeoutMs: number
  /** The most of the linked page read, in bytes. */
  readonly linkCardMaxBytes: number
  /** The video service (`app.bsky.video.*`); `null`: videos go to the PDS as a blob. */
  readonly videoServiceUrl: string | null
  /** The video service's DID, the audience of its service-auth token for `getUploadLimits`. */
  readonly videoServiceDid: string
  /** The wait between two `getJobStatus` checks of a video being processed. */
  readonly pollIntervalMs: number
  /** How many checks a video job gets before the target fails (`video_processing_timeout`). */
  readonly videoChecksMax: number
}

/** Defaults: permalinks on bsky.app, link cards read within 5 s and 512 KiB. */
export const defaults: Config = {
  webHost: "https://bsky.app",
  linkCards: true,
  linkCardAllowLoopback: false,
  linkCardTimeoutMs: 5_000,
  linkCardMaxBytes: 512 * 1024,
  videoServiceUrl: "https://video.bsky.app",
  videoServiceDid: "did:web:video.bsky.app",
  pollIntervalMs: 2_000,
  videoChecksMax: 300
}

/** The post collection. */
export const postCollection = "app.bsky.feed.post"

/** What a target saves: the record key and the record, before the record is sent. */
interface State {
  readonly rkey: string
  readonly record: Record<string, unknown>
}

const isState = (state: unknown): state is State =>
  typeof stringField(state, "rkey") === "string" && typeof field(state, "record") === "object" && field(state, "record") !== null

/** The record key of an `at://` URI (its last segment). */
export const rkeyOf = (uri: string): string => uri.slice(uri.lastIndexOf("/") + 1)

/** The DID of an `at://did/collection/rkey` URI. */
export const didOf = (uri: string): string => uri.replace(/^at:\/\//, "").split("/")[0] ?? ""

/** A post's public address on the web app. */
export const permalink = (webHost: string, handle: string, rkey: string): string =>
  `${webHost.replace(/\/+$/, "")}/profile/${handle}/post/${rkey}`

/** The record of a post: text, facets, embed, creation time. */
export const buildRecord = (
  session: Xrpc.Session,
  input: PublishInput,
  nowMs: number,
  alt: ReadonlyArray<string>,
  config: Config = defaults,
  uploaded?: ReadonlyArray<unknown>
): Effect.Effect<Record<string, unknown>, import("@postwire/core").PlatformFailure> =>
  Effect.gen(function* () {
    const text = input.post.caption
    const found = Facets.detect(text)
    const dids = new Map<string, string>()
    for (const handle of new Set(found.flatMap((f) => (f._tag === "mention" ? [f.handle] : [])))) {
      const response = yield* session.call({ _tag: "query", nsid: "com.atproto.identity.resolveHandle", params: { handle } })
      const did = Xrpc.ok(response) ? stringField(response.json, "did") : undefined
      // An unknown handle stays plain text (400 "Unable to resolve handle"); a throttled or failing PDS is retried later.
      if (did !== undefined) dids.set(handle, did)
      else if (response.status === 429 || response.status >= 500) return yield* Effect.fail(Xrpc.toFailure(response, nowMs))
    }
    const facets = Facets.facets(text, found, dids)
    const blobs: Array<unknown> = uploaded === undefined ? [] : [...uploaded]
    for (const media of uploaded === undefined ? input.media : []) {
      const bytes = yield* media.read
      const response = yield* session.call({ _tag: "upload", nsid: "com.atproto.repo.uploadBlob", bytes, contentType: media.record.mime })
      if (!Xrpc.ok(response)) {
        return yield* Effect.fail(amend(Xrpc.toFailure(response, nowMs, "media_invalid"), { notPublished: true }))
      }
      const blob = field(response.json, "blob")
      if (typeof blob !== "object" || blob === null) return yield* Effect.fail(failure("platform_unavailable", "malformed_response:uploadBlob"))
      blobs.push(blob)
    }
    const ratio = (m: PublishInput["media"][number]) =>
      m.record.width !== null && m.record.height !== null && m.record.width > 0 && m.record.height > 0
        ? { aspectRatio: { width: m.record.width, height: m.record.height } }
        : {}
    let embed: Record<string, unknown> | undefined
    if (input.media.length === 1 && input.media[0]!.record.kind === "video") {
      embed = { $type: "app.bsky.embed.video", video: blobs[0], ...(alt[0] ? { alt: alt[0] } : {}), ...ratio(input.media[0]!) }
    } else if (input.media.length > 0) {
      embed = {
        $type: "app.bsky.embed.images",
        images: input.media.map((m, i) => ({ image: blobs[i], alt: alt[i] ?? "", ...ratio(m) }))
      }
    } else {
      const link = Facets.firstLink(found)
      if (link !== undefined) embed = { $type: "app.bsky.embed.external", external: yield* external(session, link, config) }
    }
    return {
      $type: postCollection,
      text,
      createdAt: new Date(nowMs).toISOString(),
      ...(facets.length > 0 ? { facets } : {}),
      ...(langsOf(input).length > 0 ? { langs: langsOf(input) } : {}),
      ...(embed === undefined ? {} : { embed })
    }
  })

/** The link card's `external` object: the page's words, and its image uploaded as the thumbnail when it could be. */
const external = (session: Xrpc.Session, link: string, config: Config) =>
  Effect.gen(function* () {
    const card = yield* LinkCard.read(link, {
      fetch: config.linkCards,
      allowLoopback: config.linkCardAllowLoopback,
      timeoutMs: config.linkCardTimeoutMs,
      maxBytes: config.linkCardMaxBytes
    })
    const words = { uri: card.uri, title: card.title, description: card.description }
    if (card.image === undefined) return words
    // A thumbnail the PDS refuses (too large for it, throttled) leaves the card without one.
    const uploaded = yield* session.call({ _tag: "upload", nsid: "com.atproto.repo.uploadBlob", bytes: card.image.bytes, contentType: card.image.mime }).pipe(
      Effect.map((response) => (Xrpc.ok(response) ? field(response.json, "blob") : undefined)),
      Effect.orElseSucceed(() => undefined)
    )
    return typeof uploaded === "object" && uploaded !== null ? { ...words, thumb: uploaded } : words
  })

/** The caption breaks a rule validate checks too: the target ends before anything is sent. */
const captionFailure = (caption: string) => {
  if (Array.from(new Intl.Segmenter("en", { granularity: "grapheme" }).segment(caption)).length > rules.captionMax) {
    return failure("caption_too_long", "caption_rules", { details: { limit: rules.captionMax, platform: "atproto" }, state: null, notPublished: true })
  }
  if (byteLength(caption) > textBytesMax) {
    const broken = rules.checkCaption?.(caption)
    return failure("caption_invalid", "atproto_text_bytes", { details: broken?.details, state: null, notPublished: true })
  }
  return undefined
}

/** The alt texts of a target's media, from its options (`targets[].atproto.alt`), if any. */
export const altOf = (input: PublishInput): ReadonlyArray<string> => strings(field(field(input.target.options, "atproto"), "alt"))

/** The post's languages, from its options (`targets[].atproto.langs`), if any. */
export const langsOf = (input: PublishInput): ReadonlyArray<string> => strings(field(field(input.target.options, "atproto"), "langs"))

const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.map((a) => (typeof a === "string" ? a : "")) : [])

/** Creates the publisher. */
export const make = (config: Config, wire: Wire) => {
  const videos = Video.make(config, wire)
  return {
  publish: (input: PublishInput) =>
    Effect.gen(function* () {
      const session = yield* Xrpc.session(wire, input.account.id, input.account.credentials)
      const withCredentials = <A extends object>(a: A) => {
        const update = session.update()
        return update === undefined ? a : { ...a, credentials: update }
      }
      const fail = (f: import("@postwire/core").PlatformFailure) => {
        const update = session.update()
        return Effect.fail(update === undefined ? f : amend(f, { credentials: update }))
      }
      const now = yield* Clock.currentTimeMillis
      const repo = session.current().did
      const published = (uri: string, state: State): PublishStep => ({
        _tag: "Published",
        platformPostId: uri,
        permalink: permalink(config.webHost, session.current().handle, rkeyOf(uri)),
        state
      })
      let state: State
      if (Video.isVideoJob(input.state)) {
        // A video at the video service: ready, failed, or still in process.
        const job = yield* videos.check(input.state).pipe(Effect.catch(fail))
        if (job._tag === "InProgress") return withCredentials(job)
        const record = yield* buildRecord(session, input, now, altOf(input), config, [job.blob]).pipe(Effect.catch(fail))
        state = { rkey: Tid.next(now), record }
      } else if (isState(input.state)) {
        // Resuming after a create whose answer may be lost: look first.
        state = input.state
        const found = yield* session.call({
          _tag: "query",
          nsid: "com.atproto.repo.getRecord",
          params: { repo, collection: postCollection, rkey: state.rkey }
        }).pipe(Effect.catch((f) => fail(amend(f, { state }))))
        if (Xrpc.ok(found)) {
          const uri = stringField(found.json, "uri") ?? `at://${repo}/${postCollection}/${state.rkey}`
          return withCredentials(published(uri, state))
        }
        if (Xrpc.errorName(found) !== "RecordNotFound") return yield* fail(amend(Xrpc.toFailure(found, now), { state }))
      } else {
        const broken = captionFailure(input.post.caption)
        if (broken !== undefined) return yield* fail(broken)
        if (config.videoServiceUrl !== null && input.media.length === 1 && input.media[0]!.record.kind === "video") {
          const job = yield* videos.start(session, input.media[0]!).pipe(Effect.catch(fail))
          if (job._tag === "InProgress") return withCredentials(job)
          const record = yield* buildRecord(session, input, now, altOf(input), config, [job.blob]).pipe(Effect.catch(fail))
          state = { rkey: Tid.next(now), record }
        } else {
          const record = yield* buildRecord(session, input, now, altOf(input), config).pipe(Effect.catch(fail))
          state = { rkey: Tid.next(now), record }
        }
      }
      if (input.checkpoint !== undefined) yield* input.checkpoint(state)
      const created = yield* session.call({
        _tag: "procedure",
        nsid: "com.atproto.repo.createRecord",
        json: { repo, collection: postCollection, rkey: state.rkey, record: state.record }
      }).pipe(Effect.catch((f) => fail(amend(f, { state }))))
      if (Xrpc.ok(created)) {
        const uri = stringField(created.json, "uri")
        if (uri === undefined) return yield* fail(failure("platform_unavailable", "malformed_response:createRecord", { state }))
        return withCredentials(published(uri, state))
      }
      // A 4xx other than a rate limit: the PDS refused the record, nothing was written; unless the
      // key is taken because an earlier create (whose answer was lost) went through: look again.
      const refused = Xrpc.toFailure(created, now)
      const sure = created.status >= 400 && created.status < 500 && refused.code !== "platform_unavailable"
      if (sure && refused.code !== "token_expired") {
        const again = yield* session.call({
          _tag: "query",
          nsid: "com.atproto.repo.getRecord",
          params: { repo, collection: postCollection, rkey: state.rkey }
        }).pipe(Effect.catch((f) => fail(amend(f, { state }))))
        if (Xrpc.ok(again)) return withCredentials(published(stringField(again.json, "uri") ?? `at://${repo}/${postCollection}/${state.rkey}`, state))
      }
      return yield* fail(amend(refused, sure ? { state: null, notPublished: true } : { state }))
    })
}
}
