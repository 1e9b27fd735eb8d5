/**
 * The planner's statistics kept by Postwire (`TableStatistics`), on the embedded database (which
 * has no autovacuum) and on PostgreSQL (in a schema of its own, whatever its autovacuum does in
 * between: the refreshes here run before autovacuum's first turn could reach the new tables).
 *
 * A workspace gets 10,000 posts of history written straight into its tables, no `ANALYZE`. The
 * refresh analyzes the tables that grew, and then the publisher's lock of a batch's posts by key
 * reads those posts through the primary key, not the workspace's history; a second refresh finds
 * nothing to do; a table grown by a third is analyzed again, and only that one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { PgliteClient, SqlStore, TableStatistics } from "@postwire/store-sql"
import { historyStatements } from "../../bench/history.ts"
import { Store } from "@postwire/core"
import { aProfile, aWorkspace, anAccount } from "../store-conformance/builders.ts"
import { freshSchema, onPostgres } from "../support/Postgres.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

/** One node of a JSON plan, with the fields read here. */
interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Actual Rows": number
  readonly "Actual Loops": number
  readonly "Rows Removed by Filter"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** Rows of `table` the plan read: those it returned and those it read and threw away. */
const rowsRead = (node: PlanNode, table: string): number =>
  (node["Relation Name"] === table ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"] : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0)

const suite = (label: string, database: () => Layer.Layer<SqlClient.SqlClient, unknown>, postgres = false) =>
  describe(`The planner's statistics kept by Postwire: ${label}`, () => {
    const runtime = ManagedRuntime.make(
      Layer.mergeAll(SqlStore.layer, TableStatistics.layer).pipe(Layer.provideMerge(database()))
    )
    const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | TableStatistics.TableStatistics | Store>) =>
      runtime.runPromise(effect)
    const refresh = Effect.flatMap(TableStatistics.TableStatistics, (statistics) => statistics.refresh)
    const workspace = aWorkspace()
    const profile = aProfile(workspace.id)
    const accounts = [anAccount(workspace.id, profile.id), anAccount(workspace.id, profile.id)] as const
    const seed = (from: number, to: number) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const statements = historyStatements({
          workspaceId: workspace.id,
          profileId: profile.id,
          accounts: [accounts[0].id, accounts[1].id],
          platform: "photo",
          from,
          to,
          endAt: Date.now()
        })
        // The history's own ANALYZE left out: here nothing else gathers statistics. One
        // transaction, on one connection: on PostgreSQL its backend then hands its counts of
        // changed rows to the statistics as it commits, instead of up to ten seconds later
        // (when a refresh that already analyzed the table would count them again).
        yield* sql.withTransaction(
          Effect.gen(function* () {
            for (const statement of statements.filter((s) => s.trim() !== "ANALYZE")) yield* sql.unsafe(statement)
            if (postgres) yield* sql`SELECT pg_stat_force_next_flush()`
          })
        )
      })

    beforeAll(async () => {
      await run(
        Effect.gen(function* () {
          const store = yield* Store
          yield* store.createWorkspace(workspace)
          yield* store.createProfile(profile)
          for (const account of accounts) yield* store.createAccount(account)
        })
      )
    }, 60_000)
    afterAll(() => runtime.dispose())

    it("analyzes the tables a history filled, and the lock of a batch's posts then reads only those posts", async () => {
      await run(seed(1, 10_000))
      const analyzed = await run(refresh)
      expect(analyzed).toEqual(expect.arrayContaining(["posts", "targets", "outbox_events"]))
      const plan = await run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ids = yield* sql<{ readonly id: string }>`SELECT id FROM posts WHERE workspace_id = ${workspace.id} ORDER BY id LIMIT 32`
          const [row] = yield* sql.withTransaction(
            sql.unsafe<{ readonly "QUERY PLAN": unknown }>(
              `EXPLAIN (ANALYZE, FORMAT JSON) SELECT workspace_id, id FROM posts
               WHERE workspace_id = $1 AND id IN (${ids.map((_, i) => `$${i + 2}`).join(", ")})
               ORDER BY workspace_id, id FOR UPDATE`,
              [workspace.id, ...ids.map((r) => r.id)]
            )
          )
          const json = row!["QUERY PLAN"]
          return ((typeof json === "string" ? JSON.parse(json) : json) as ReadonlyArray<{ readonly Plan: PlanNode }>)[0]!.Plan
        })
      )
      expect(rowsRead(plan, "posts")).toBeLessThanOrEqual(64)
    })

    it("finds nothing to do when nothing changed, and analyzes again only the tables that grew by more than a tenth", async () => {
      const again = await run(refresh)
      expect(again).not.toContain("posts")
      expect(again).not.toContain("accounts")
      await run(seed(10_001, 14_000))
      const grown = await run(refresh)
      expect(grown).toEqual(expect.arrayContaining(["posts", "targets"]))
      expect(grown).not.toContain("accounts")
      expect(grown).not.toContain("workspaces")
    })
  })

suite("embedded", () => PgliteClient.layer({ template }))
onPostgres("The planner's statistics kept by Postwire: PostgreSQL", (url) => suite("PostgreSQL", () => freshSchema(url, "pw_stats"), true))
