/**
 * The `PlatformClient` service: publishes one target to its platform, step by step, so that a
 * crash at any point can resume without publishing twice.
 *
 * `publish` is called with the state saved after the previous step (`null` the first time).
 * A step that returns `InProgress` gives the state to persist (a container or publish id)
 * BEFORE anything else happens; the publisher stores it and calls `publish` again with it after
 * `pollAfterMs`. An adapter given a state never re-sends a publish that may have succeeded: it
 * asks the platform first.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { AccountRecord } from "../store/AccountStore.ts"
import type { MediaRecord, PostRecord, TargetRecord } from "../store/PostStore.ts"
import type { CredentialsUpdate, PlatformFailure } from "./PlatformFailure.ts"

/** A media item as a platform adapter needs it. */
export interface PublishMedia {
  readonly record: MediaRecord
  /** A public address the platform can fetch the bytes from (Meta and PULL_FROM_URL need one). */
  readonly url: string
  /** The bytes, for platforms that take an upload (FILE_UPLOAD, rupload). */
  readonly read: Effect.Effect<Uint8Array>
  /**
   * The item as a JPEG rendition (made once and stored beside the original, served at its own
   * signed address), for a platform that takes JPEG images only; fails with a non-retryable
   * `media_invalid` when the image cannot be decoded. Absent when the engine has no image codec
   * (`ImageConverter`) or the item is not an image.
   */
  readonly asJpeg?: Effect.Effect<PublishMedia, PlatformFailure> | undefined
}

/** Everything needed to publish one target. */
export interface PublishInput {
  readonly post: PostRecord
  readonly target: TargetRecord
  readonly account: AccountRecord
  readonly media: ReadonlyArray<PublishMedia>
  /** The state saved after the previous step; `null` on the first call. */
  readonly state: unknown
  /**
   * Saves `state` at once, keeping the target, and records that the platform may have published
   * it from now on: call it right before a call that may publish (and whose answer may be lost).
   * From then on the target is never reported failed unless a step says the platform did not
   * publish it ({@link PlatformFailure} `notPublished`) or gave up within its bound (`gaveUp`);
   * it waits and is asked again instead.
   * Fails when the target is no longer this worker's: nothing may be sent then. Absent outside
   * the publisher (an adapter then just goes on).
   */
  readonly checkpoint?: ((state: unknown) => Effect.Effect<void, PlatformFailure>) | undefined
}

/** The outcome of one step. */
export type PublishStep =
  | {
      readonly _tag: "Published"
      /**
       * The platform's id of the published item; `null` when the platform said it published but
       * not yet which item it became (the permalink backfill finds it, with `permalinkPending`).
       */
      readonly platformPostId: string | null
      /** Public address; `null` while the platform has not made one yet (moderation, inbox). */
      readonly permalink: string | null
      /**
       * The platform makes the public address later (TikTok's moderation): the target is
       * published now, and the permalink backfill asks {@link PlatformClient} `permalink` for it.
       */
      readonly permalinkPending?: boolean | undefined
      /** With `permalinkPending`: when to ask first (default one minute after publishing). */
      readonly permalinkAskAfterMs?: number | undefined
      readonly state: unknown
    }
  | {
      readonly _tag: "InProgress"
      /** Persist this before anything else; pass it back on the next call. */
      readonly state: unknown
      /** When to call again. */
      readonly pollAfterMs: number
    }

/** Everything needed to ask for the public address of a target published without one. */
export interface PermalinkInput {
  readonly target: TargetRecord
  /** The target's post (its caption tells a published item apart on the account's list). */
  readonly post?: PostRecord | undefined
  /** The account with its credentials opened, as for `publish`. */
  readonly account: AccountRecord
  /** The target's platform state, as the `Published` step left it. */
  readonly state: unknown
}

/** What the platform says about a public address that was not there yet. */
export type PermalinkLookup =
  | {
      /** Still in moderation: ask again later. */
      readonly _tag: "NotYet"
    }
  | {
      readonly _tag: "Found"
      readonly permalink: string
      /** The platform's public id of the published item. */
      readonly platformPostId: string
      /** The target's platform state from now on (it keeps the public id). */
      readonly state: unknown
    }
  | {
      /** There will be none (the post was taken down in moderation): stop asking. */
      readonly _tag: "Never"
    }

/**
 * A target about to be created (or validated), as a platform's up-front check sees it: before
 * anything is stored, so that a platform whose budget is spent refuses it at once.
 */
export interface AdmitInput {
  /** The target's account (its credentials are not opened: the check calls no platform). */
  readonly account: AccountRecord
  /** The target's options as they will be stored (`{ [platform]: … }`, the encoded form). */
  readonly options: unknown
  /** When the target is to be published (epoch ms): `scheduled_at`, or now. */
  readonly publishAt: number
}

/** What a shortvideo creator may do now (TikTok creator_info). */
export interface CreatorInfo {
  readonly nickname: string
  readonly username: string
  readonly privacyLevelOptions: ReadonlyArray<string>
  readonly commentDisabled: boolean
  readonly duetDisabled: boolean
  readonly stitchDisabled: boolean
  readonly maxVideoPostDurationSec: number
}

/** Publishes targets to platforms. */
export class PlatformClient extends Context.Service<
  PlatformClient,
  {
    /** Runs the next step of publishing one target. */
    readonly publish: (
      input: PublishInput
    ) => Effect.Effect<PublishStep & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
    /** The creator's current options (shortvideo only), for the consent form and pre-checks. */
    readonly creatorInfo: (
      account: AccountRecord
    ) => Effect.Effect<CreatorInfo & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
    /**
     * Asks again for the public address of a target whose `Published` step said
     * `permalinkPending`. Optional: a platform whose steps never say so needs none.
     *
     * @example
     * ```ts
     * const lookup = yield* platform.permalink!({ target, account, state: target.platformState })
     * if (lookup._tag === "Found") console.log(lookup.permalink)
     * ```
     */
    readonly permalink?: (
      input: PermalinkInput
    ) => Effect.Effect<PermalinkLookup & { readonly credentials?: CredentialsUpdate | undefined }, PlatformFailure>
    /**
     * Checks a target before it is created or validated, without calling the platform (a
     * shared budget that is spent: YouTube's daily units): the failure to answer with, or
     * `undefined` when the target may go on. Optional: absent, every target may.
     */
    readonly admit?: ((input: AdmitInput) => Effect.Effect<PlatformFailure | undefined>) | undefined
  }
>()("postwire/PlatformClient") {}
