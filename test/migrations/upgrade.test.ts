/**
 * Every migration is tested from the previous version's schema with data in it. For each
 * migration `V` this version knows: a fresh database is migrated to `V`, loaded with the data
 * that version's server wrote (`fixtures/V.sql`, plain SQL), then migrated to the latest; a
 * real server then runs on it and the data must be intact and usable: every post and account
 * listed, every approval link opening, every webhook endpoint delivering a signed event with its
 * stored secret, every stored credential opened (and re-sealed) with the master secret.
 *
 * Adding migration `N`: write `fixtures/<N>.sql` (data as the server at `N` writes it, see
 * test/migrations/README.md) and add `<N>` to {@link fixturesRequired}. The migration before it
 * is then tested with its own fixture, from N-1 to N and on to the latest.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { Reseal } from "@postwire/server"
import { Migrations, SqlStore } from "@postwire/store-sql"
import { call } from "../support/Http.ts"
import { backends, startServer } from "../support/TestServer.ts"
import { aReceiver } from "../webhooks/Receiver.ts"
import { anOpenDatabase, type OpenDatabase } from "../secrets/LegacyDatabase.ts"
import { fixtureKey, fixtureSecret } from "./Fixtures.ts"

/**
 * The migrations whose fixture must exist. A migration of this version missing from this list
 * is reported (not failed) so that branches adding migrations in parallel merge green; once its
 * fixture is written, list it here and a missing fixture fails the suite.
 */
const fixturesRequired: ReadonlyArray<string> = [
  "0001_init",
  "0002_publishing",
  "0003_webhooks",
  "0004_pending_permalinks",
  "0005_accounts_connect",
  "0006_webhook_log",
  "0007_publish_recovery"
]

const fixturePath = (version: string) => join(import.meta.dirname, "fixtures", `${version}.sql`)

/** Each version with a fixture, and the migrations that take it to the latest. */
const cases = Migrations.known.flatMap((version, index) =>
  existsSync(fixturePath(version)) ? [{ version, applies: Migrations.known.slice(index + 1) }] : []
)

const unlisted = Migrations.known.filter((version) => !fixturesRequired.includes(version) && !existsSync(fixturePath(version)))
if (unlisted.length > 0) {
  console.warn(`Migrations without a fixture yet (not tested from their schema with data): ${unlisted.join(", ")}; see test/migrations/README.md`)
}

describe("migration fixtures", () => {
  it("exist for every migration listed as requiring one", () => {
    const missing = fixturesRequired.filter((version) => !existsSync(fixturePath(version)))
    expect(
      missing.map((version) => `missing fixture test/migrations/fixtures/${version}.sql`),
      "write each from the data that version's server writes (test/migrations/README.md)"
    ).toEqual([])
  })

  it("name only migrations this version knows", () => {
    expect(fixturesRequired.filter((version) => !Migrations.known.includes(version))).toEqual([])
  })
})

/** The statements of a fixture, one per line ending in `;` (comments skipped). */
const statementsOf = (version: string) =>
  readFileSync(fixturePath(version), "utf8")
    .split(/;\n/)
    .map((statement) => statement.replace(/^--.*$/gm, "").trim())
    .filter((statement) => statement !== "")

const loadFixture = (version: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const statement of statementsOf(version)) yield* sql.unsafe(statement)
  })

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** What the fixture holds, read back with SQL after the migrations. */
const contentsOf = (database: OpenDatabase) =>
  database.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [key] = yield* sql<{ workspace_id: string }>`SELECT workspace_id FROM api_key_hashes WHERE key_hash = ${sha256(fixtureKey)}`
      if (key === undefined) return yield* Effect.die(new Error("the fixture has no api key with the hash of Fixtures.fixtureKey"))
      const workspaceId = key.workspace_id
      const posts = yield* sql<{ id: string; caption: string }>`SELECT id, caption FROM posts WHERE workspace_id = ${workspaceId}`
      const accounts = yield* sql<{ id: string; platform: string }>`SELECT id, platform FROM accounts WHERE workspace_id = ${workspaceId}`
      const profiles = yield* sql<{ id: string }>`SELECT id FROM profiles WHERE workspace_id = ${workspaceId}`
      const approvals = yield* sql<{ post_id: string }>`SELECT post_id FROM approvals WHERE workspace_id = ${workspaceId} AND status = 'pending'`
      const sealed = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM accounts WHERE credentials IS NOT NULL`
      const endpoints = yield* sql<{ id: string; secret: string }>`SELECT id, secret FROM webhook_endpoints WHERE workspace_id = ${workspaceId}`
      return { workspaceId, posts, accounts, profiles, approvals, sealed: Number(sealed[0]?.n ?? 0), endpoints }
    })
  )

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe.each(backends())("migrations on %s, each from the schema before it with data", (backend) => {
  it.each(cases)("$version with data, migrated to the latest: the data is intact and usable", async ({ version, applies }) => {
    const database = await anOpenDatabase(backend)
    cleanups.push(database.drop)
    const ran = await database.run(
      Effect.gen(function* () {
        yield* Migrations.migrateTo(version)
        yield* loadFixture(version)
        return yield* Migrations.migrate
      })
    )
    expect(ran.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)).toEqual(applies)

    const contents = await contentsOf(database)
    expect(contents.posts.length).toBeGreaterThan(0)
    const server = await startServer(
      backend,
      { POSTWIRE_SECRET: fixtureSecret, POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" },
      {
        database: {
          ...database,
          firstRun: {
            workspaceId: contents.workspaceId,
            testKey: fixtureKey,
            profileId: contents.profiles[0]!.id,
            accounts: contents.accounts
          }
        }
      }
    )
    const receiver = await aReceiver()
    try {
      const posts = await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: fixtureKey })
      expect(posts.status).toBe(200)
      expect(posts.body.data.map((post: { id: string }) => post.id).sort()).toEqual(contents.posts.map((post) => post.id).sort())
      const accounts = await call(server.baseUrl, "GET", "/v1/accounts?limit=100", { key: fixtureKey })
      expect(accounts.body.data.map((account: { id: string }) => account.id).sort()).toEqual(contents.accounts.map((account) => account.id).sort())

      for (const { post_id } of contents.approvals) {
        const post = await call(server.baseUrl, "GET", `/v1/posts/${post_id}`, { key: fixtureKey })
        const path = new URL(post.body.approval.url).pathname
        expect((await fetch(`${server.baseUrl}${path}`)).status, `the approval link of ${post_id}`).toBe(200)
      }

      for (const endpoint of contents.endpoints) {
        receiver.secret = endpoint.secret
        const moved = await call(server.baseUrl, "PATCH", `/v1/webhooks/${endpoint.id}`, { key: fixtureKey, body: { url: receiver.url } })
        expect(moved.status).toBe(200)
        const tested = await call(server.baseUrl, "POST", `/v1/webhooks/${endpoint.id}/test`, { key: fixtureKey })
        expect(tested.body).toMatchObject({ delivered: true, status_code: 204 })
        expect(receiver.events.map((event) => event.id)).toContain(tested.body.event_id)
      }
      expect(receiver.rejected).toEqual([])
    } finally {
      await receiver.close()
      await server.stop()
    }

    // The stored credentials open with the master secret: every one is re-sealed, none unreadable.
    const dataDir = mkdtempSync(join(tmpdir(), "postwire-migrations-"))
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
    const counts = await database.run(
      Reseal.reseal({ secrets: [Redacted.make(fixtureSecret)], databaseUrl: undefined, dataDir }).pipe(
        Effect.provide(SqlStore.layer)
      )
    )
    expect(counts).toMatchObject({ resealed: contents.sealed, current: 0, unreadable: 0, changed: 0 })
  })

  const from0004 = cases.find((entry) => entry.version === "0004_pending_permalinks")
  it("upgrades a 0004 database with data to the latest", () => {
    expect(from0004?.applies.at(-1)).toBe(Migrations.known.at(-1))
    expect(from0004?.applies.length).toBeGreaterThan(0)
  })
})
