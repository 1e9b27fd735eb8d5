/**
 * The concurrent-writes cases on the embedded PGlite, and what the group commit is for: a
 * worker's concurrent completions share transactions.
 */
import { assert, describe, layer } from "@effect/vitest"
import { PublishingStore, TargetStatus, targetKey } from "@postwire/core"
import { PgliteClient, SqlPublishingStore, SqlStore } from "@postwire/store-sql"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { aBurst, anEra, claimAndStart, concurrentWritesSpec } from "./concurrent-writes.ts"
import { anEvent } from "../store-conformance/builders.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

concurrentWritesSpec("embedded PGlite", () =>
  Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(Layer.provide(PgliteClient.layer({ template }))))

layer(Layer.merge(SqlStore.layer, SqlPublishingStore.layer).pipe(Layer.provideMerge(PgliteClient.layer({ template }))), {
  excludeTestServices: true
})("PublishingStore group commit: embedded PGlite", (it) => {
  describe("completions of many targets at once", () => {
    it.effect("share a few transactions instead of taking one each", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const queue = yield* PublishingStore
        const era = anEra()
        const burst = yield* aBurst(era, Array.from({ length: 64 }, () => 1), 8)
        yield* claimAndStart(burst, "w1", era + 5)
        // Every transaction that writes takes a transaction id; so does asking for one.
        const transactionId = sql<{ readonly id: string }>`SELECT pg_current_xact_id()::text AS id`.pipe(
          Effect.map(([row]) => Number(row!.id))
        )
        const before = yield* transactionId
        const answers = yield* Effect.all(
          burst.posts.map((post) =>
            queue.completeTarget(targetKey(post.targets[0]!), "w1", {
              at: era + 30,
              outcome: { _tag: "Published", permalink: "https://www.threads.net/@acme/post/C1", publishedAt: era + 30, platformState: null },
              events: [anEvent(burst.workspaceId, { type: "post.published", createdAt: era + 30 })],
              postStatus: TargetStatus.derivePostStatus
            })
          ),
          { concurrency: "unbounded" }
        )
        const after = yield* transactionId
        assert.isTrue(answers.every((held) => held))
        assert.isBelow(after - before - 1, 8)
      }))
  })
})
