/**
 * What the comment adapter tests share: the comment router configured for tests (tiny retry
 * delays, the given hosts), the poll and action inputs, and a poll that records how many requests
 * the fake received while it ran.
 */
import type { AccountRecord, CommentPlatform, CommentPoll, PlatformFailure, TargetRecord } from "@postwire/core"
import { CommentRouter } from "@postwire/platforms"
import { Effect, Result } from "effect"
import { FetchHttpClient } from "effect/http"
import { aPost, aTarget } from "../builders.ts"
import type { FakeServer } from "../fakes/FakeServer.ts"

/** A sandbox implementation that refuses to be called: real accounts must never reach it. */
export const noSandbox: CommentRouter.SandboxComments = {
  poll: () => Effect.die(new Error("sandbox poll called for a real account")),
  reply: () => Effect.die(new Error("sandbox reply called for a real account")),
  setHidden: () => Effect.die(new Error("sandbox setHidden called for a real account")),
  remove: () => Effect.die(new Error("sandbox remove called for a real account"))
}

/** The comment router for tests: retries 1 ms apart, Threads reply checks 1 ms apart. */
export const aCommentRouter = (options: CommentRouter.Options, sandbox: CommentRouter.SandboxComments = noSandbox) =>
  CommentRouter.make(
    {
      retry: { attempts: 3, baseDelayMs: 1 },
      requestTimeoutMs: 5_000,
      ...options,
      comments: { replyPollIntervalMs: 1, ...options.comments }
    },
    sandbox
  ).pipe(Effect.provide(FetchHttpClient.layer))

/** A published target whose item is `platformPostId` (kept in the publish state, as publishing leaves it). */
export const aPublishedTarget = (account: AccountRecord, platformPostId: string, inState: "media_id" | "post_id" = "media_id"): TargetRecord =>
  aTarget(account, { status: "published", platformState: { [inState]: platformPostId } })

/** One poll with the request count it cost at the fake. */
export interface CountedPoll extends CommentPoll {
  readonly requests: number
}

/** A stateful poller of one target: each poll passes the previous cursor and the refreshed credentials. */
export const poller = (
  comments: CommentPlatform["Service"],
  fake: FakeServer,
  account: AccountRecord,
  target: TargetRecord
) => {
  let cursor: unknown = null
  let current = account
  const post = aPost()
  return {
    get account() {
      return current
    },
    get cursor() {
      return cursor
    },
    poll: Effect.gen(function* () {
      const before = fake.requests.length
      const result = yield* comments.poll({ post, target, account: current, cursor })
      // Stored as JSON, as the engine stores it.
      cursor = JSON.parse(JSON.stringify(result.cursor)) as unknown
      if (result.credentials !== undefined) current = { ...current, credentials: result.credentials.credentials }
      return { ...result, requests: fake.requests.length - before } satisfies CountedPoll
    }),
    action: (platformCommentId: string) => ({ post, target, account: current, platformCommentId })
  }
}

/** The failure of an effect that must fail. */
export const failureOf = <A>(effect: Effect.Effect<A, PlatformFailure>) =>
  Effect.flatMap(Effect.result(effect), (result) =>
    Result.isFailure(result) ? Effect.succeed(result.failure) : Effect.die(new Error("expected a failure"))
  )

/** Texts of comments, sorted (polls return comments in any order). */
export const texts = (poll: CommentPoll): Array<string> => poll.comments.map((c) => c.text).sort()
