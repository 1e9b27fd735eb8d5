/**
 * Every migration is tested from the previous version's schema with data in it. For each
 * migration `V` this version knows: a fresh database is migrated to `V`, loaded with the data
 * that version's server wrote (`fixtures/V.sql`, plain SQL), then migrated to the latest; a
 * real server then runs on it and the data must be intact and usable: every post and account
 * listed, every approval link opening, every webhook endpoint delivering a signed event with its
 * stored secret, every stored credential opened (and re-sealed) with the master secret, every
 * comment listed, every media item listed with its status (an unfinished upload's parts still
 * there, or the upload deleted by the workers once expired), and every operator-set quota still
 * counting the account's targets at their instants.
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
import { allScopes, type ErrorCode, renderMessage } from "@postwire/domain"
import { Reseal } from "@postwire/server"
import { Migrations, SqlStore } from "@postwire/store-sql"
import { aKeyWithScopes } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
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
  "0007_publish_recovery",
  "0008_comments",
  "0009_media_lifecycle",
  "0010_history_bounded",
  "0011_target_errors_as_data",
  "0012_hot_updates",
  "0013_post_trace_parent",
  "0014_outbox_pending",
  "0015_key_approval_links"
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

const day = 24 * 60 * 60 * 1000

/** The public address the upgraded servers run under (the fixtures' errors were stored under another). */
const publicUrl = "https://upgraded.postwire.example"

/**
 * The values the fixtures' failed targets' messages are filled with: written by 0011 as data, read
 * back by the migration from the messages 0010 stored.
 */
const failureDetails: Readonly<Record<string, Readonly<Record<string, string | { en: string; id: string }>>>> = {
  tgt_01M8A1B2C3D4E5F6G7H8J9K0MP: {
    platform: "pages",
    detail: { en: "a reel lasts at least 3 seconds", id: "reel berdurasi paling singkat 3 detik" }
  },
  tgt_01M8A1B2C3D4E5F6G7H8J9K0MQ: {}
}

/** Each account with a limit of its own: the limit and the instants its targets count at, oldest first. */
const quotasOf = (rows: ReadonlyArray<{ account_id: string; daily_quota: number; at: number | string }>) =>
  [...new Set(rows.map((row) => row.account_id))].map((accountId) => {
    const own = rows.filter((row) => row.account_id === accountId)
    return { accountId, limit: Number(own[0]!.daily_quota), instants: own.map((row) => Number(row.at)).sort((a, b) => a - b) }
  })

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
      const comments = yield* sql<{ id: string; post_id: string; target_id: string; text: string }>`SELECT id, post_id, target_id, text FROM comments WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL`
      const media = yield* sql<{ id: string; upload_status: string | null; expires_at: number | string | null }>`SELECT m.id, u.status AS upload_status, u.expires_at FROM media m
        LEFT JOIN media_uploads u ON u.workspace_id = m.workspace_id AND u.media_id = m.id WHERE m.workspace_id = ${workspaceId}`
      const failures = yield* sql<{ id: string; post_id: string; error: unknown }>`SELECT id, post_id, error FROM targets WHERE workspace_id = ${workspaceId} AND error IS NOT NULL`
      const parts = yield* sql<{ media_id: string; part_number: number }>`SELECT media_id, part_number FROM media_upload_parts WHERE workspace_id = ${workspaceId} ORDER BY part_number`
      // The instant each target counts against its account's quota, from the fixture's own columns
      // (its publication, else its post's publish time), for the accounts with a limit of their own.
      const counted = yield* sql<{ account_id: string; daily_quota: number; at: number | string }>`SELECT a.id AS account_id, a.daily_quota, coalesce(t.published_at, p.publish_at) AS at
        FROM accounts a
        JOIN targets t ON t.workspace_id = a.workspace_id AND t.account_id = a.id
        JOIN posts p ON p.workspace_id = t.workspace_id AND p.id = t.post_id
        WHERE a.workspace_id = ${workspaceId} AND a.daily_quota IS NOT NULL AND a.sandbox
          AND t.status NOT IN ('cancelled', 'rejected', 'failed')`
      return {
        workspaceId,
        posts,
        accounts,
        profiles,
        approvals,
        sealed: Number(sealed[0]?.n ?? 0),
        endpoints,
        comments,
        media: media.map((item) => ({
          id: item.id,
          receiving: item.upload_status === "receiving",
          expiresAt: item.expires_at === null ? null : Number(item.expires_at),
          parts: parts.filter((part) => part.media_id === item.id).map((part) => Number(part.part_number))
        })),
        quotas: quotasOf(counted),
        failures: failures.map((row) => ({
          id: row.id,
          postId: row.post_id,
          error: (typeof row.error === "string" ? JSON.parse(row.error) : row.error) as Record<string, unknown>
        }))
      }
    })
  )

/**
 * The ids of the events not fanned out yet, at `version`'s schema: marked by a `dispatched_at`
 * left empty before 0014, queued in `outbox_pending` from it on.
 */
const notFannedOut = (version: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows =
      Migrations.known.indexOf(version) < Migrations.known.indexOf("0014_outbox_pending")
        ? yield* sql<{ id: string }>`SELECT id FROM outbox_events WHERE dispatched_at IS NULL`
        : yield* sql<{ id: string }>`SELECT o.id FROM outbox_pending p
            JOIN outbox_events o ON o.workspace_id = p.workspace_id AND o.seq = p.seq`
    return rows.map((row) => row.id).sort()
  })

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe.each(backends())("migrations on %s, each from the schema before it with data", (backend) => {
  it.each(cases)("$version with data, migrated to the latest: the data is intact and usable", async ({ version, applies }) => {
    const database = await anOpenDatabase(backend)
    cleanups.push(database.drop)
    const { queuedAfter, queuedBefore, ran } = await database.run(
      Effect.gen(function* () {
        yield* Migrations.migrateTo(version)
        yield* loadFixture(version)
        const queuedBefore = yield* notFannedOut(version)
        const ran = yield* Migrations.migrate
        return { ran, queuedBefore, queuedAfter: yield* notFannedOut(Migrations.known.at(-1)!) }
      })
    )
    expect(ran.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)).toEqual(applies)
    // Events written but not fanned out yet (each fixture has one) are still to be fanned out.
    expect(queuedBefore.length).toBeGreaterThan(0)
    expect(queuedAfter).toEqual(queuedBefore)

    const contents = await contentsOf(database)
    expect(contents.posts.length).toBeGreaterThan(0)
    if (Migrations.known.indexOf(version) >= Migrations.known.indexOf("0008_comments")) {
      // What the checks below need: a comment, an account with a limit of its own (and, from 0009, an unfinished upload).
      expect(contents.comments.length).toBeGreaterThan(0)
      expect(contents.quotas.length).toBeGreaterThan(0)
    }
    if (Migrations.known.indexOf(version) >= Migrations.known.indexOf("0009_media_lifecycle")) {
      expect(contents.media.filter((item) => item.receiving && item.parts.length > 0).length).toBeGreaterThan(0)
    }
    if (Migrations.known.indexOf(version) >= Migrations.known.indexOf("0010_history_bounded")) {
      // A failed post whose targets' errors 0010 stored rendered (one in an earlier catalog's words).
      expect(contents.failures.length).toBeGreaterThan(0)
    }
    // Every stored target error is data after the migrations: no words, no address.
    for (const failure of contents.failures) {
      expect(Object.keys(failure.error).sort(), failure.id).toEqual(
        expect.arrayContaining(["code", "retryable"])
      )
      expect(failure.error).not.toHaveProperty("message")
      expect(failure.error).not.toHaveProperty("docs")
    }
    const server = await startServer(
      backend,
      { POSTWIRE_SECRET: fixtureSecret, POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1", POSTWIRE_PUBLIC_URL: publicUrl },
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
    // The fixture's workspace has a live account, which its test key may neither see nor touch:
    // the data is read back with a live key of the same workspace.
    const liveKey = await aKeyWithScopes(server, allScopes, "live")
    const receiver = await aReceiver()
    try {
      const posts = await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: liveKey })
      expect(posts.status).toBe(200)
      expect(posts.body.data.map((post: { id: string }) => post.id).sort()).toEqual(contents.posts.map((post) => post.id).sort())
      const accounts = await call(server.baseUrl, "GET", "/v1/accounts?limit=100", { key: liveKey })
      expect(accounts.body.data.map((account: { id: string }) => account.id).sort()).toEqual(contents.accounts.map((account) => account.id).sort())

      for (const { post_id } of contents.approvals) {
        const post = await call(server.baseUrl, "GET", `/v1/posts/${post_id}`, { key: liveKey })
        const path = new URL(post.body.approval.url).pathname
        expect((await fetch(`${server.baseUrl}${path}`)).status, `the approval link of ${post_id}`).toBe(200)
      }

      for (const endpoint of contents.endpoints) {
        receiver.secret = endpoint.secret
        const moved = await call(server.baseUrl, "PATCH", `/v1/webhooks/${endpoint.id}`, { key: liveKey, body: { url: receiver.url } })
        expect(moved.status).toBe(200)
        const tested = await call(server.baseUrl, "POST", `/v1/webhooks/${endpoint.id}/test`, { key: liveKey })
        expect(tested.body).toMatchObject({ delivered: true, status_code: 204 })
        expect(receiver.events.map((event) => event.id)).toContain(tested.body.event_id)
      }
      expect(receiver.rejected).toEqual([])

      // Comments (0008 on): every one listed, under its post and target, with its text.
      const comments = await call(server.baseUrl, "GET", "/v1/comments?limit=100", { key: liveKey })
      expect(comments.status).toBe(200)
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1)
      expect(
        comments.body.data
          .map((comment: { id: string; post_id: string; target_id: string; text: string }) => ({
            id: comment.id,
            post_id: comment.post_id,
            target_id: comment.target_id,
            text: comment.text
          }))
          .sort(byId)
      ).toEqual([...contents.comments].sort(byId))

      // Target errors (0010 stored them rendered): shown in the reader's language, in the current
      // catalog's words, with the values the stored message was filled with, and the docs address
      // under the server's public URL of now, not the one they were stored under.
      for (const failure of contents.failures) {
        const post = await call(server.baseUrl, "GET", `/v1/posts/${failure.postId}`, { key: liveKey, headers: { "accept-language": "id" } })
        expect(post.status).toBe(200)
        const target = post.body.targets.find((t: { id: string }) => t.id === failure.id)
        const code = failure.error.code as ErrorCode
        const details = failureDetails[failure.id]
        expect(target.error, failure.id).toEqual({
          code,
          message: renderMessage(code, "id", details),
          message_id: renderMessage(code, "id", details),
          target_id: failure.id,
          retryable: failure.error.retryable,
          docs: `${publicUrl}/docs/errors#${code}`,
          ...(failure.error.platform_code === undefined ? {} : { platform_code: failure.error.platform_code })
        })
        const listed = await call(server.baseUrl, "GET", "/v1/posts?limit=100", { key: liveKey })
        const inList = listed.body.data.find((p: { id: string }) => p.id === failure.postId).targets.find((t: { id: string }) => t.id === failure.id)
        expect(inList.error.message).toBe(renderMessage(code, "en", details))
      }

      // Media: items from before 0009 and finished ones are ready; an unfinished upload is
      // processing with the parts it received, until it expires and the workers delete it.
      const media = await call(server.baseUrl, "GET", "/v1/media?limit=100", { key: liveKey })
      expect(media.status).toBe(200)
      const listed = new Map<string, string>(media.body.data.map((item: { id: string; status: string }) => [item.id, item.status]))
      const expired = new Set(
        contents.media.filter((item) => item.receiving && item.expiresAt !== null && item.expiresAt <= Date.now()).map((item) => item.id)
      )
      // Listed or already deleted, the expired uploads aside, the list is exactly the fixture's media.
      expect([...listed.keys()].filter((id) => !expired.has(id)).sort()).toEqual(
        contents.media.map((item) => item.id).filter((id) => !expired.has(id)).sort()
      )
      for (const item of contents.media) {
        if (expired.has(item.id)) {
          await eventually(
            () => call(server.baseUrl, "GET", `/v1/media/${item.id}`, { key: liveKey }),
            (reply) => reply.status === 404,
            `the expired upload ${item.id} to be deleted`,
            { intervalMs: 250 }
          )
          continue
        }
        expect(listed.get(item.id), `the status of ${item.id}`).toBe(item.receiving ? "processing" : "ready")
        if (item.receiving) {
          const upload = await call(server.baseUrl, "GET", `/v1/media/uploads/${item.id}`, { key: liveKey })
          expect(upload.body).toMatchObject({ id: item.id, status: "receiving", parts_received: item.parts })
        }
      }

      // Quotas: an account's targets still count at their instants. A post an hour after the
      // latest is over a full limit (resetting a day after the oldest in its window); a day
      // later the window is empty again.
      const readyMedia = contents.media.find((item) => !item.receiving)?.id
      for (const quota of contents.quotas) {
        const latest = quota.instants.at(-1)!
        const validate = (at: number) =>
          call(server.baseUrl, "POST", "/v1/posts/validate", {
            key: fixtureKey,
            body: {
              profile_id: contents.profiles[0]!.id,
              caption: "Quota check",
              media: [readyMedia],
              targets: [{ account_id: quota.accountId }],
              scheduled_at: new Date(at).toISOString()
            }
          })
        const at = latest + 60 * 60 * 1000
        const inWindow = quota.instants.filter((instant) => instant > at - day && instant <= at)
        const full = await validate(at)
        expect(full.status, JSON.stringify(full.body)).toBe(200)
        const quotaIssues = (body: { issues: ReadonlyArray<{ code: string }> }) => body.issues.filter((issue) => issue.code === "quota_exceeded")
        if (inWindow.length + 1 > quota.limit) {
          expect(quotaIssues(full.body), `the quota of ${quota.accountId}`).toEqual([
            expect.objectContaining({
              code: "quota_exceeded",
              field: "targets[0].account_id",
              // The issue names the limit and when it resets (the shared shape carries no details for it).
              message: expect.stringMatching(new RegExp(`limit of ${quota.limit}\\b.*${new Date(inWindow[0]! + day).toISOString().replaceAll(".", "\\.")}`))
            })
          ])
        } else {
          expect(quotaIssues(full.body)).toEqual([])
        }
        const later = await validate(latest + day + 60 * 60 * 1000)
        expect(later.body.issues).toEqual([])
      }
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
    // Approval links events held in clear are sealed: no event keeps a working link.
    const clearLinks = await database.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ id: string }>`SELECT id FROM outbox_events WHERE data->>'approval_url' LIKE 'http%'`
      })
    )
    expect(clearLinks).toEqual([])
    expect(counts.approvalLinks.changed).toBe(0)
  })

  const from0004 = cases.find((entry) => entry.version === "0004_pending_permalinks")
  it("upgrades a 0004 database with data to the latest", () => {
    expect(from0004?.applies.at(-1)).toBe(Migrations.known.at(-1))
    expect(from0004?.applies.length).toBeGreaterThan(0)
  })
})
