/**
 * The claiming loops poll about once a second, and mostly find nothing. On both databases, a poll
 * with nothing due (the publisher's claim, the permalink backfill's, the media jobs') is one
 * statement outside any transaction, instead of BEGIN, a locking read and COMMIT; a poll with
 * work claims it in its transaction as before, and while claims keep finding work they are not
 * preceded by that read. Every statement a poll sends is recorded as it is sent, with whether a
 * transaction was open. No time is measured.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient, Statement } from "effect/sql"
import { MediaStore, PublishingStore, Store } from "@postwire/core"
import { PgliteClient, SqlMediaStore, SqlPublishingStore, SqlStore } from "@postwire/store-sql"
import { anAccount, aPost, aProfile, aTarget, aWorkspace } from "../store-conformance/builders.ts"
import { freshSchema } from "../support/Postgres.ts"
import { anEmbeddedTemplate, backends } from "../support/TestServer.ts"

/** A statement as it was sent. */
interface Sent {
  readonly text: string
  readonly inTransaction: boolean
}

const databaseLayer = async (backend: "embedded" | "postgres") =>
  backend === "embedded"
    ? PgliteClient.layer({ template: await anEmbeddedTemplate() })
    : freshSchema(process.env.DATABASE_URL!, "pw_idle", { maxConnections: 4 })

describe.each(backends())("idle polls on %s", (backend) => {
  let runtime: ManagedRuntime.ManagedRuntime<Store | PublishingStore | MediaStore | SqlClient.SqlClient, unknown>
  const workspace = aWorkspace()
  const profile = aProfile(workspace.id)
  const account = anAccount(workspace.id, profile.id, { dailyQuota: 1_000 })

  beforeAll(async () => {
    const database = await databaseLayer(backend)
    runtime = ManagedRuntime.make(
      Layer.mergeAll(SqlPublishingStore.layer, SqlMediaStore.layer).pipe(
        Layer.provideMerge(SqlStore.layer),
        Layer.provideMerge(database)
      )
    )
    await runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.createWorkspace(workspace)
        yield* store.createProfile(profile)
        yield* store.createAccount(account)
      })
    )
  }, 60_000)
  afterAll(() => runtime.dispose())

  /** Runs `poll`, recording every statement it sends. */
  const recorded = <A, E>(poll: Effect.Effect<A, E, PublishingStore | MediaStore>) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const sent: Array<Sent> = []
        const record: Statement.Transformer = (statement, _sql, fiber) =>
          Effect.sync(() => {
            sent.push({
              text: statement.compile()[0].replace(/\s+/g, " ").trim(),
              inTransaction: Context.getOrUndefined(fiber.context, sql.transactionService) !== undefined
            })
            return statement
          })
        const result = yield* poll.pipe(Effect.provideService(Statement.CurrentTransformer, record))
        return { result, sent }
      })
    )

  const claimTargets = (at: number) =>
    Effect.flatMap(PublishingStore, (publishing) =>
      publishing.claimDueTargets({ owner: "w1", at, leaseUntil: at + 60_000, limit: 10, perAccount: 5 })
    )

  it("a poll with nothing due is one statement, outside any transaction, for every claiming loop", async () => {
    const at = Date.now()
    const polls: ReadonlyArray<Effect.Effect<ReadonlyArray<unknown>, unknown, PublishingStore | MediaStore>> = [
      claimTargets(at),
      Effect.flatMap(PublishingStore, (publishing) =>
        publishing.claimPendingPermalinks({ owner: "w1", at, leaseUntil: at + 60_000, limit: 10 })
      ),
      Effect.flatMap(MediaStore, (media) =>
        media.claimMediaJobs({ owner: "w1", at, leaseUntil: at + 60_000, limit: 10, unusedBefore: at - 86_400_000 })
      )
    ]
    for (const poll of polls) {
      // Twice: the first and a later idle poll alike.
      for (let i = 0; i < 2; i++) {
        const { result, sent } = await recorded(poll)
        expect(result).toEqual([])
        expect(sent).toHaveLength(1)
        expect(sent[0]!.inTransaction, sent[0]!.text).toBe(false)
      }
    }
  })

  it("a poll with work claims it in its transaction, and the polls after it claim without the idle read", async () => {
    const at = Date.now()
    const due = aPost(workspace.id, {
      profileId: profile.id,
      status: "queued",
      publishAt: at - 1_000,
      targets: [
        aTarget({ accountId: account.id, status: "queued", dueAt: at - 1_000 }),
        aTarget({ accountId: account.id, status: "queued", dueAt: at - 1_000 })
      ]
    })
    await runtime.runPromise(Effect.flatMap(Store, (store) => store.insertPost(due, [])))

    // After idle polls: the idle read finds work, then the claim runs in its transaction.
    await recorded(claimTargets(at - 60_000))
    const first = await runtime.runPromise(
      Effect.flatMap(PublishingStore, (publishing) =>
        publishing.claimDueTargets({ owner: "w1", at, leaseUntil: at + 60_000, limit: 1, perAccount: 5 })
      )
    )
    expect(first.map((target) => target.postId)).toEqual([due.post.id])
    // Claims that keep finding work start with their locking read, in the transaction.
    const { result, sent } = await recorded(claimTargets(at))
    expect(result.map((target) => target.postId)).toEqual([due.post.id])
    expect(sent.length).toBeGreaterThan(1)
    expect(sent.every((statement) => statement.inTransaction)).toBe(true)
    // Nothing left: this poll finds nothing (in its transaction), and the next one is idle again.
    expect((await recorded(claimTargets(at))).result).toEqual([])
    const idle = await recorded(claimTargets(at))
    expect(idle.result).toEqual([])
    expect(idle.sent.map((statement) => statement.inTransaction)).toEqual([false])
  })
})
