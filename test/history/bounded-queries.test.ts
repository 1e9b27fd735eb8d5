/**
 * Hot statements stay index-bounded as history grows. On PostgreSQL, a workspace gets 1,000
 * posts of history, then 100,000; each time the request path (auth, rate limit, idempotency,
 * create with its quota, get, list pages and filters, patch), the publisher (claim, a claim's
 * start with its reads and the quota at publish, a resumed step's read, progress, complete,
 * unconfirmed, permalink backfill, leases) and the dispatcher
 * (fan-out, claim, prune) run through the real stores. Every statement they issue is captured as
 * it is sent and explained with `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` in a transaction (or
 * savepoint) rolled back just before it runs. The test fails when a statement scans a big table
 * sequentially or examines more rows at 100,000 posts than at 1,000. No time is measured.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Data, Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { SqlClient, Statement } from "effect/sql"
import {
  PublishingStore,
  Store,
  type TargetRecord,
  TargetStatus,
  WebhookStore
} from "@postwire/core"
import { IdempotencyStore, RateLimitStore } from "@postwire/server"
import { layerPostgres, SqlPublishingStore, SqlStore, SqlWebhookStore } from "@postwire/store-sql"
import { historyStatements } from "../../bench/history.ts"
import {
  anAccount,
  anApiKey,
  anApproval,
  anEvent,
  aPost,
  aProfile,
  aSave,
  aTarget,
  aWorkspace
} from "../store-conformance/builders.ts"
import { anIdempotencyClaim } from "../limits/conformance.ts"
import { anEndpoint } from "../webhook-store/builders.ts"

const url = process.env.DATABASE_URL

/** The tables that grow with history: none may be read by a sequential scan. */
const bigTables = ["posts", "targets", "approvals", "approval_tokens", "outbox_events", "webhook_deliveries"]

/** One node of a JSON plan, with the fields read here. */
interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Actual Rows": number
  readonly "Actual Loops": number
  readonly "Rows Removed by Filter"?: number
  readonly "Rows Removed by Index Recheck"?: number
  readonly "Shared Hit Blocks"?: number
  readonly "Shared Read Blocks"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** What one statement cost. */
interface Cost {
  readonly operation: string
  readonly text: string
  /** Rows every scan of the plan produced or filtered away, over all its loops. */
  readonly examined: number
  /** Shared buffers its scans touched. */
  readonly buffers: number
  /** Sequential scans of big tables, by table. */
  readonly seqScans: ReadonlyArray<string>
  readonly plan: PlanNode
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

const costOf = (operation: string, text: string, plan: PlanNode): Cost => {
  const nodes = nodesOf(plan)
  const scans = nodes.filter((node) => node["Node Type"].includes("Scan") && node["Relation Name"] !== undefined)
  return {
    operation,
    text,
    examined: scans.reduce(
      (sum, node) =>
        sum +
        (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) *
          node["Actual Loops"],
      0
    ),
    // The scans' own blocks: an insert's index upkeep (a page split now and then) is not reading history.
    buffers: scans.reduce((sum, node) => sum + (node["Shared Hit Blocks"] ?? 0) + (node["Shared Read Blocks"] ?? 0), 0),
    seqScans: scans
      .filter((node) => node["Node Type"] === "Seq Scan" && bigTables.includes(node["Relation Name"]!))
      .map((node) => node["Relation Name"]!),
    plan
  }
}

/** Ends the explaining transaction (or savepoint) so the statement's effects are rolled back. */
class Explained extends Data.TaggedError("Explained")<{ readonly plan: PlanNode }> {}

/** Every statement issued under `capture`, explained, then run. */
const explainer = (sql: SqlClient.SqlClient, label: () => string, costs: Array<Cost>): Statement.Transformer =>
  (statement) => {
    const [text, params] = statement.compile()
    if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(text)) return Effect.succeed(statement)
    const operation = label()
    return sql.withTransaction(
      sql.unsafe<{ readonly "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params).pipe(
        Effect.flatMap(([row]) => {
          const json = row!["QUERY PLAN"]
          const parsed = (typeof json === "string" ? JSON.parse(json) : json) as ReadonlyArray<{ readonly Plan: PlanNode }>
          return Effect.fail(new Explained({ plan: parsed[0]!.Plan }))
        })
      )
    ).pipe(
      Effect.catchTag("Explained", ({ plan }) => Effect.sync(() => costs.push(costOf(operation, text, plan)))),
      Effect.orDie,
      // The explaining statements themselves are not explained.
      Effect.provideService(Statement.CurrentTransformer, undefined),
      Effect.as(statement)
    )
  }

if (url === undefined) {
  describe("Hot statements bounded by history: PostgreSQL", () => {
    it.skipIf(process.env.REQUIRE_POSTGRES !== "1")("needs DATABASE_URL, because REQUIRE_POSTGRES=1", () => {
      expect.fail("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")
    })
  })
} else {
  describe("Hot statements bounded by history: PostgreSQL", () => {
    const schema = `pw_hist_${Math.random().toString(36).slice(2, 10)}`
    const admin = ManagedRuntime.make(layerPostgres(Redacted.make(url), { maxConnections: 1 }))
    const runtime = ManagedRuntime.make(
      Layer.mergeAll(SqlPublishingStore.layer, SqlWebhookStore.layer, RateLimitStore.layerSql, IdempotencyStore.layerSql).pipe(
        Layer.provideMerge(SqlStore.layer),
        Layer.provideMerge(layerPostgres(url, { searchPath: schema, maxConnections: 6 }))
      )
    )
    const workspace = aWorkspace()
    const profile = aProfile(workspace.id)
    const first = anAccount(workspace.id, profile.id, { dailyQuota: 1_000_000 })
    const second = anAccount(workspace.id, profile.id, { dailyQuota: 1_000_000 })
    const key = anApiKey(workspace.id)
    const endpoint = anEndpoint(workspace.id, { events: ["post.scheduled", "post.published"] })
    const now = Date.now()

    beforeAll(async () => {
      await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE SCHEMA ${schema}`)))
      await runtime.runPromise(
        Effect.gen(function* () {
          const store = yield* Store
          const webhooks = yield* WebhookStore
          yield* store.createWorkspace(workspace)
          yield* store.createApiKey(key)
          yield* store.createProfile(profile)
          yield* store.createAccount(first)
          yield* store.createAccount(second)
          yield* webhooks.createEndpoint(endpoint)
        })
      )
    })
    afterAll(async () => {
      await runtime.dispose()
      await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP SCHEMA ${schema} CASCADE`)))
      await admin.dispose()
    })

    const seed = (from: number, to: number) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          for (const statement of historyStatements({
            workspaceId: workspace.id,
            profileId: profile.id,
            accounts: [first.id, second.id],
            platform: "photo",
            from,
            to,
            endAt: now,
            endpointId: endpoint.id
          })) {
            yield* sql.unsafe(statement)
          }
        })
      )

    /** The hot paths, once, with every statement explained; the costs in the order issued. */
    const scenario = (round: string) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* Store
          const publishing = yield* PublishingStore
          const webhooks = yield* WebhookStore
          const rateLimits = yield* RateLimitStore.RateLimitStore
          const idempotencyKeys = yield* IdempotencyStore.IdempotencyStore
          const costs: Array<Cost> = []
          let current = ""
          const step = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
            Effect.suspend(() => {
              current = name
              return effect
            })
          const transformer = explainer(sql, () => current, costs)
          const at = Date.now()
          const owner = `worker_${round}`
          const due = aPost(workspace.id, {
            profileId: profile.id,
            status: "queued",
            publishAt: at - 1000,
            createdAt: at,
            updatedAt: at,
            targets: [
              aTarget({ accountId: first.id, status: "queued", dueAt: at - 1000 }),
              aTarget({ accountId: second.id, status: "queued", dueAt: at - 1000 })
            ]
          })
          const awaiting = aPost(workspace.id, {
            profileId: profile.id,
            status: "awaiting_approval",
            approvalMode: "link",
            publishAt: at,
            createdAt: at,
            updatedAt: at,
            targets: [aTarget({ accountId: first.id, status: "awaiting_approval" })],
            approval: anApproval({ expiresAt: at + 86_400_000, createdAt: at })
          })
          const window = { from: at - 86_400_000 + 1, to: at + 60_001 }
          const caps = [first, second].map((account) => ({ accountId: account.id, ...window, limit: 1_000_000 }))
          const idempotency = anIdempotencyClaim({ workspaceId: workspace.id, keyId: key.id, createdAt: at, lockedUntil: at + 60_000 })
          const windowStart = at - (at % 60_000)

          yield* Effect.gen(function* () {
            // The request path.
            yield* step("findApiKeyByHash", store.findApiKeyByHash(key.hash))
            // The key's and the route's limits, in one statement.
            yield* step(
              "hitRateLimits",
              rateLimits.hit(
                [`key:${key.id}:${round}`, `posts.create:${key.id}:${round}`].map((bucket) => ({ bucket, windowStart, expiresAt: windowStart + 120_000 }))
              )
            )
            yield* step("beginIdempotency", idempotencyKeys.begin(idempotency, at - 86_400_000))
            yield* step("getProfile", store.getProfile(workspace.id, profile.id))
            yield* step("getAccounts", store.getAccounts(workspace.id, [first.id, second.id]))
            yield* step("countQuotaUsage", store.countQuotaUsage(workspace.id, first.id, window.from, window.to))
            // What planning a create reads on SQL stores, in one statement instead of the reads above.
            const inputs = yield* step(
              "readPlanInputs",
              store.readPlanInputs!(workspace.id, profile.id, [first.id, second.id], [], window.from, window.to)
            )
            expect(inputs.accounts.map((account) => account.id)).toEqual([first.id, second.id])
            expect(Option.isSome(inputs.profile)).toBe(true)
            yield* step("insertPostWithinQuota", store.insertPostWithinQuota(due, [anEvent(workspace.id, { type: "post.scheduled", createdAt: at, data: { post_id: due.post.id } })], caps))
            yield* step("insertPostWithinQuota", store.insertPostWithinQuota(awaiting, [], caps))
            yield* step("completeIdempotency", idempotencyKeys.complete(idempotency, 201, "{}"))
            yield* step("getPost", store.getPost(workspace.id, awaiting.post.id))
            const page = yield* step("listPosts", store.listPosts(workspace.id, {}, undefined, 25))
            const last = page[page.length - 1]!.post
            yield* step("listPosts next page", store.listPosts(workspace.id, {}, { sortKey: last.publishAt, id: last.id }, 25))
            yield* step("listPosts by status", store.listPosts(workspace.id, { status: "published" }, undefined, 25))
            yield* step("listPosts by platform", store.listPosts(workspace.id, { platform: "photo" }, undefined, 25))
            yield* step("listPosts by an unused platform", store.listPosts(workspace.id, { platform: "shortvideo" }, undefined, 25))
            yield* step("listPosts by profile", store.listPosts(workspace.id, { profileId: profile.id }, undefined, 25))
            yield* step("savePost", store.savePost(aSave(awaiting, () => ({ caption: "Edited", updatedAt: at })), []))
            yield* step("findApprovalByTokenHash", store.findApprovalByTokenHash(awaiting.approval!.tokenHash))

            // The publisher.
            const claimed = yield* step(
              "claimDueTargets",
              publishing.claimDueTargets({ owner, at, leaseUntil: at + 60_000, limit: 10, perAccount: 5 })
            )
            const target = claimed.find((t: TargetRecord) => t.postId === due.post.id)
            expect(target).toBeDefined()
            const key_ = { workspaceId: workspace.id, postId: due.post.id, targetId: target!.id }
            // The claim's start: the posts' and targets' locks, one read (with the quota usage), one write.
            const started = yield* step(
              "startSteps",
              publishing.startSteps({
                owner,
                at,
                targets: claimed,
                quotaWindow: { from: window.from, to: at + 1 },
                firstStartEvents: (t) => [anEvent(workspace.id, { type: "post.publishing", createdAt: at, data: { post_id: t.postId } })]
              })
            )
            expect(started.every(Option.isSome)).toBe(true)
            // A step left in progress, claimed again: its resumption is one read.
            yield* step("saveProgress", publishing.saveProgress(key_, owner, { at, platformState: { container: "c1" }, dueAt: at }))
            const resumed = yield* step(
              "claimDueTargets again",
              publishing.claimDueTargets({ owner, at, leaseUntil: at + 60_000, limit: 1, perAccount: 5 })
            )
            expect(resumed.map((t) => t.id)).toEqual([target!.id])
            const resumedSteps = yield* step(
              "startSteps resuming",
              publishing.startSteps({ owner, at, targets: resumed, quotaWindow: window, firstStartEvents: () => [] })
            )
            expect(resumedSteps.every(Option.isSome)).toBe(true)
            yield* step(
              "completeTarget",
              publishing.completeTarget(key_, owner, {
                at,
                outcome: { _tag: "Published", permalink: null, publishedAt: at, platformState: null, permalinkAskAt: at },
                events: [anEvent(workspace.id, { type: "post.published", createdAt: at, data: { post_id: due.post.id } })],
                postStatus: TargetStatus.derivePostStatus
              })
            )
            yield* step("unconfirmedTargets", publishing.unconfirmedTargets(at))
            yield* step("claimPendingPermalinks", publishing.claimPendingPermalinks({ owner, at, leaseUntil: at + 60_000, limit: 10 }))
            yield* step("renewLeases", publishing.renewLeases(owner, at, at + 60_000))
            yield* step("releaseTargets", publishing.releaseTargets(owner))

            // The dispatcher and the log pruner.
            yield* step("fanOutEvents", webhooks.fanOutEvents(at, 100))
            yield* step("claimDueDeliveries", webhooks.claimDueDeliveries(owner, at, at + 60_000, 10))
            yield* step("releaseDeliveries", webhooks.releaseDeliveries(owner))
            yield* step("pruneLog", webhooks.pruneLog(now - 30 * 86_400_000 * 12, 100))
          }).pipe(Effect.provideService(Statement.CurrentTransformer, transformer))
          return costs
        })
      )

    it("examines no more rows at 100,000 posts of history than at 1,000, and never scans a big table", { timeout: 600_000 }, async () => {
      await seed(1, 1_000)
      const small = await scenario("small")
      await seed(1_001, 100_000)
      const large = await scenario("large")

      // Statements pair up by operation and text (the concurrent ones of a page may swap places, and
      // an IN list may be longer).
      const keyed = (costs: ReadonlyArray<Cost>) => {
        const seen = new Map<string, number>()
        return new Map(
          costs.map((cost) => {
            const key = `${cost.operation}: ${cost.text.replace(/\s+/g, " ").replace(/\$\d+(,\$\d+)*/g, "$")}`
            const n = (seen.get(key) ?? 0) + 1
            seen.set(key, n)
            return [`${key} #${n}`, cost] as const
          })
        )
      }
      const before = keyed(small)
      const after = keyed(large)
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort())
      if (process.env.HISTORY_REPORT === "1") {
        console.table(
          [...after].map(([key, cost]) => ({
            statement: key.slice(0, 100),
            examined: `${before.get(key)!.examined} → ${cost.examined}`,
            buffers: `${before.get(key)!.buffers} → ${cost.buffers}`
          }))
        )
      }
      for (const [key, cost] of after) {
        const then = before.get(key)!
        const where = key.slice(0, 400)
        // With 1,000 posts a small table may rightly be read whole; with 100,000 none may be.
        expect(cost.seqScans, where).toEqual([])
        // A few rows more are what the first round added itself (its posts, targets, events).
        expect(cost.examined, where).toBeLessThanOrEqual(then.examined + 10)
        // An index one level deeper reads a block or two more per lookup; history would read thousands.
        expect(cost.buffers, where).toBeLessThanOrEqual(then.buffers * 2 + 64)
      }
    })

    it("fans out a batch of a backlog reading as many rows at 20,000 events waiting as at 1,000, and never rewrites an event", { timeout: 600_000 }, async () => {
      /** Writes `count` events of a post waiting to be fanned out (as the stores write them: the event and its place in the queue). */
      const queue = (batch: string, count: number) =>
        runtime.runPromise(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql.unsafe(
              `WITH e AS (INSERT INTO outbox_events (workspace_id, id, type, created_at, livemode, data)
                 SELECT $1, 'evt_' || $2 || '_' || g, 'post.published', $3, false, jsonb_build_object('post_id', 'post_' || $2)
                 FROM generate_series(1, $4::int) g
                 RETURNING seq, workspace_id)
               INSERT INTO outbox_pending (seq, workspace_id) SELECT seq, workspace_id FROM e`,
              [workspace.id, batch, Date.now(), count]
            )
          )
        )
      /** The cost of the fan-out's statements for one batch of 100, explained (and rolled back). */
      const fanOutCost = () =>
        runtime.runPromise(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const webhooks = yield* WebhookStore
            const costs: Array<Cost> = []
            yield* webhooks.fanOutEvents(Date.now(), 100).pipe(
              Effect.provideService(Statement.CurrentTransformer, explainer(sql, () => "fanOutEvents", costs))
            )
            return costs
          })
        )
      await queue("backlog1", 1_000)
      const small = await fanOutCost()
      await queue("backlog2", 19_000)
      const large = await fanOutCost()
      expect(large.map((cost) => cost.text)).toEqual(small.map((cost) => cost.text))
      for (const [i, cost] of large.entries()) {
        expect(cost.seqScans).toEqual([])
        expect(cost.examined, cost.text).toBeLessThanOrEqual(small[i]!.examined + 10)
      }

      // Fanned out for real: every event once, each with its delivery, and no event row rewritten.
      const { after, before, deliveries, waiting } = await runtime.runPromise(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const webhooks = yield* WebhookStore
          const versions = () =>
            Effect.map(
              sql<{ id: string; xmin: string }>`SELECT id, xmin::text AS xmin FROM outbox_events
                WHERE workspace_id = ${workspace.id} AND id LIKE 'evt_backlog%' ORDER BY id`,
              (rows) => rows.map((row) => `${row.id}@${row.xmin}`)
            )
          const before = yield* versions()
          while ((yield* webhooks.fanOutEvents(Date.now(), 500)) > 0) {
            // until the queue is empty
          }
          const [waiting] = yield* sql<{ n: string }>`SELECT count(*) AS n FROM outbox_pending`
          const [deliveries] = yield* sql<{ n: string }>`SELECT count(*) AS n FROM webhook_deliveries
            WHERE workspace_id = ${workspace.id} AND endpoint_id = ${endpoint.id} AND event_id LIKE 'evt_backlog%'`
          return { before, after: yield* versions(), waiting: Number(waiting!.n), deliveries: Number(deliveries!.n) }
        })
      )
      expect(before).toHaveLength(20_000)
      expect(after).toEqual(before)
      expect(waiting).toBe(0)
      expect(deliveries).toBe(20_000)
    })
  })
}
