/**
 * The simulated platform's comments, behind every sandbox account, so the whole comments feature
 * can be tried offline.
 *
 * An account's `simulate.comments` (`{ count, every_seconds }`) makes people comment on each of
 * its published targets: comment `i` (from 1 to `count`) appears `i * every_seconds` after the
 * target published. Everything is derived from the target's id and that schedule, nothing is
 * kept: the cursor is how many comments were returned so far, and a poll returns the ones that
 * appeared since. Answers, hides and deletes are accepted (an answer gets an id of its own).
 * Each poll costs one call.
 *
 * @since 0.3.0
 */
import { createHash } from "node:crypto"
import type {
  AccountRecord,
  CommentActionInput,
  CommentCapabilities,
  CommentPoll,
  CommentPollInput,
  PlatformComment,
  PlatformFailure
} from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { Clock, Effect } from "effect"
import { failure } from "../internal/Wire.ts"

/** The simulated platform's comments, shaped like a `CommentPlatform`. */
export interface SimulatedComments {
  readonly capabilities: (platform: Platform) => CommentCapabilities
  readonly poll: (input: CommentPollInput) => Effect.Effect<CommentPoll, PlatformFailure>
  readonly reply: (
    input: CommentActionInput & { readonly text: string }
  ) => Effect.Effect<{ readonly comment: PlatformComment }, PlatformFailure>
  readonly setHidden: (input: CommentActionInput & { readonly hidden: boolean }) => Effect.Effect<{}, PlatformFailure>
  readonly remove: (input: CommentActionInput) => Effect.Effect<{}, PlatformFailure>
}

const people: ReadonlyArray<readonly [handle: string, name: string]> = [
  ["rina.eats", "Rina Putri"],
  ["budi_cooks", "Budi Santoso"],
  ["sari.bakes", "Sari Wulandari"],
  ["dimas.travel", "Dimas Pratama"],
  ["ayu.daily", "Ayu Lestari"]
]

const sayings: ReadonlyArray<string> = [
  "Love this! 😍",
  "Where can I buy one?",
  "Keren banget!",
  "How long did this take?",
  "Saved for later 🙌",
  "Mantap, lanjutkan!",
  "Is there a recipe?"
]

/** A 19-digit id like the platforms' int64 ids, stable for a given seed. */
const numericId = (seed: string): string => {
  const n = createHash("sha256").update(seed).digest().readBigUInt64BE(0) % 9_000_000_000_000_000_000n
  return String(1_000_000_000_000_000_000n + n)
}

/** How many comments were returned so far, read from the cursor (0 the first time). */
const returnedSoFar = (cursor: unknown): number =>
  typeof cursor === "object" && cursor !== null && typeof (cursor as { returned?: unknown }).returned === "number"
    ? Math.max(0, Math.floor((cursor as { returned: number }).returned))
    : 0

const handleOf = (account: AccountRecord) => account.handle.replace(/^@/, "")

/** Comment `i` (from 1) under a target published at `publishedAt`. */
const commentAt = (input: CommentPollInput, i: number, everyMs: number, publishedAt: number): PlatformComment => {
  const [handle, name] = people[(i - 1) % people.length]!
  const id = numericId(`${input.target.id}:comment:${i}`)
  return {
    platformCommentId: id,
    parentPlatformCommentId: null,
    authorHandle: handle,
    authorDisplayName: name,
    authorPlatformId: numericId(`person:${handle}`),
    text: sayings[(i - 1) % sayings.length]!,
    createdAt: publishedAt + i * everyMs,
    hidden: false,
    likeCount: i % 3,
    fromOwner: false,
    permalink: input.target.permalink === null ? null : `${input.target.permalink.replace(/\/$/, "")}/c/${id}/`
  }
}

const refuseEmpty = (input: CommentActionInput) =>
  input.platformCommentId === ""
    ? Effect.fail(failure("not_found", "simulated_unknown_comment", {}))
    : Effect.void

/** Creates the simulated comments. */
export const make = (): SimulatedComments => ({
  // A sandbox account can do everything but `push` (nothing pushes comments to the simulated platform).
  capabilities: () => ({ read: true, reply: true, hide: true, delete: true, push: false }),
  poll: (input) =>
    Effect.gen(function* () {
      const settings = input.account.simulate?.comments
      const publishedAt = input.target.publishedAt
      const returned = returnedSoFar(input.cursor)
      if (settings === undefined || publishedAt === null || settings.count <= 0) {
        return { comments: [], cursor: { returned }, calls: 1 }
      }
      const everyMs = Math.max(1, settings.every_seconds) * 1000
      const now = yield* Clock.currentTimeMillis
      const visible = Math.min(settings.count, Math.max(0, Math.floor((now - publishedAt) / everyMs)))
      const comments: Array<PlatformComment> = []
      for (let i = returned + 1; i <= visible; i++) comments.push(commentAt(input, i, everyMs, publishedAt))
      return { comments, cursor: { returned: Math.max(returned, visible) }, calls: 1 }
    }).pipe(Effect.withSpan("platforms.simulated.comments.poll")),
  reply: (input) =>
    Effect.gen(function* () {
      yield* refuseEmpty(input)
      const now = yield* Clock.currentTimeMillis
      const id = numericId(`${input.platformCommentId}:reply:${now}:${input.text}`)
      const handle = handleOf(input.account)
      return {
        comment: {
          platformCommentId: id,
          parentPlatformCommentId: input.platformCommentId,
          authorHandle: handle,
          authorDisplayName: null,
          authorPlatformId: input.account.externalId,
          text: input.text,
          createdAt: now,
          hidden: false,
          likeCount: 0,
          fromOwner: true,
          permalink: null
        }
      }
    }).pipe(Effect.withSpan("platforms.simulated.comments.reply")),
  setHidden: (input) => refuseEmpty(input).pipe(Effect.as({})),
  remove: (input) => refuseEmpty(input).pipe(Effect.as({}))
})
