/**
 * Group commit: concurrent calls of one kind of write, written together.
 *
 * While no write is in flight, a call is written at once, alone. While one is, the calls that
 * arrive wait, and the next write takes all of them (up to `maxBatch`): the batch grows with
 * the load, and a quiet caller never waits for company. Each call gets its own answer from the
 * write; a write that fails fails every call it carried, with the same cause.
 *
 * One fiber, forked in the scope of the group commit, runs the writes one after another. A
 * call interrupted while it waits leaves its batch (it is not written, unless its write had
 * already begun); closing the scope interrupts the writes in flight and every call waiting.
 *
 * @example
 * ```ts
 * const commits = yield* GroupCommit.make({
 *   maxBatch: 256,
 *   write: (items) => sql`...one statement for every item...`.pipe(Effect.map(answersOf(items)))
 * })
 * const answer = yield* commits.write(item)
 * ```
 *
 * @internal
 */
import { Deferred, Effect, Exit, Queue, type Scope } from "effect"

/** Writes one item together with the items of concurrent calls. */
export interface GroupCommit<in I, out A, out E> {
  /** Writes `item` in the next write, and answers with its own answer from that write. */
  readonly write: (item: I) => Effect.Effect<A, E>
}

/** How a {@link GroupCommit} writes. */
export interface Options<I, A, E, R> {
  /** At most this many items in one write. */
  readonly maxBatch: number
  /**
   * Writes the items (in the order their calls came) and answers each, in the same order: one
   * answer per item. A failure (or defect) is every item's answer.
   */
  readonly write: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<A>, E, R>
  /**
   * Items with the same key never go in one write: a later one waits for the next write, so
   * two calls on one thing are written one after the other, in the order they came.
   */
  readonly key?: ((item: I) => string) | undefined
}

interface Pending<I, A, E> {
  readonly item: I
  readonly answer: Deferred.Deferred<A, E>
  /** Its caller stopped waiting before a write took it. */
  abandoned: boolean
}

/**
 * Starts a group commit whose writer lives as long as the current scope.
 *
 * @example
 * ```ts
 * const checkpoints = yield* GroupCommit.make({ maxBatch: 256, write: saveCheckpoints, key: (c) => c.targetId })
 * ```
 */
export const make = <I, A, E, R>(options: Options<I, A, E, R>): Effect.Effect<GroupCommit<I, A, E>, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    const maxBatch = Math.max(1, Math.floor(options.maxBatch))
    const keyOf = options.key
    const inbox = yield* Queue.unbounded<Pending<I, A, E>>()
    // Every call not answered yet, wherever it is (inbox, carried over, in a write): closing
    // the scope interrupts each of them.
    const waiting = new Set<Pending<I, A, E>>()
    // Calls taken from the inbox that could not go in the last write (a full write, or another
    // item with their key in it): first in line for the next one.
    let carried: Array<Pending<I, A, E>> = []
    let closed = false

    const answer = (pending: Pending<I, A, E>, exit: Exit.Exit<A, E>) => {
      waiting.delete(pending)
      Deferred.doneUnsafe(pending.answer, exit)
    }

    /** The next write's calls, in the order they came; the rest are carried over. */
    const nextBatch = (candidates: ReadonlyArray<Pending<I, A, E>>) => {
      const batch: Array<Pending<I, A, E>> = []
      const keys = keyOf === undefined ? undefined : new Set<string>()
      const rest: Array<Pending<I, A, E>> = []
      for (const pending of candidates) {
        if (pending.abandoned) {
          waiting.delete(pending)
          continue
        }
        const key = keys === undefined ? undefined : keyOf!(pending.item)
        if (batch.length >= maxBatch || (key !== undefined && keys!.has(key))) {
          rest.push(pending)
          continue
        }
        if (key !== undefined) keys!.add(key)
        batch.push(pending)
      }
      carried = rest
      return batch
    }

    const writeBatch = (batch: ReadonlyArray<Pending<I, A, E>>) =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(options.write(batch.map((pending) => pending.item)))
        if (Exit.isFailure(exit)) {
          const failure = Exit.failCause(exit.cause)
          for (const pending of batch) answer(pending, failure)
          return
        }
        const answers = exit.value
        if (answers.length !== batch.length) {
          const defect = Exit.die(new Error(`group commit: ${answers.length} answers for ${batch.length} items`))
          for (const pending of batch) answer(pending, defect)
          return
        }
        for (let i = 0; i < batch.length; i++) answer(batch[i]!, Exit.succeed(answers[i]!))
      })

    const writer = Effect.gen(function* () {
      while (true) {
        // Waits for a call only when none was carried over; takes what fits in one write.
        const room = carried.length === 0 ? maxBatch : Math.min(maxBatch - carried.length, Queue.sizeUnsafe(inbox))
        const arrived = room > 0 ? yield* Queue.takeBetween(inbox, 1, room) : []
        const batch = nextBatch(carried.length === 0 ? arrived : [...carried, ...arrived])
        if (batch.length > 0) yield* writeBatch(batch)
      }
    })

    yield* Effect.forkScoped(writer)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        for (const pending of [...waiting]) answer(pending, Exit.interrupt())
      })
    )

    return {
      write: (item) =>
        Effect.suspend(() => {
          if (closed) return Effect.interrupt
          const pending: Pending<I, A, E> = { item, answer: Deferred.makeUnsafe<A, E>(), abandoned: false }
          waiting.add(pending)
          Queue.offerUnsafe(inbox, pending)
          return Deferred.await(pending.answer).pipe(
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                pending.abandoned = true
              })
            )
          )
        })
    }
  })
