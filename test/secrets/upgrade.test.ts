/**
 * Upgrading an installation whose secret is in the database (Postwire 0.1), rotating the master
 * secret, and what a database dump alone gives an attacker afterwards: nothing that opens
 * credentials or forges an approval link.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http"
import { createHash, createHmac, randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { accountContext, ApprovalToken, CredentialsCipher, Keyring } from "@postwire/core"
import { anImage, aPost } from "../support/Builders.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { anOpenDatabase, dumpValues, makeIt01, type OpenDatabase } from "./LegacyDatabase.ts"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")
const postgres = process.env.DATABASE_URL
if (!postgres && process.env.REQUIRE_POSTGRES === "1") throw new Error("REQUIRE_POSTGRES=1 but DATABASE_URL is not set")

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const childEnv = (env: Record<string, string>) => ({ ...process.env, DATABASE_URL: "", POSTWIRE_SECRET: "", POSTWIRE_SECRET_FILE: "", ...env })

/** Runs `postwire` to its end: exit code and everything it printed. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Starts `postwire serve` as an operator would and waits until it listens. */
const serve = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ child: ChildProcess; out: () => string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("OpenAPI")) resolve({ child, out: () => out })
    })
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)))
  })

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners("exit")
    child.on("exit", () => resolve())
    child.kill("SIGTERM")
  })

const credentials = { access_token: "tok-live-abc123", refresh_token: "ref-live-xyz789" }

/** What this version writes before the database is turned into a 0.1 one. */
interface Written {
  readonly workspaceId: string
  readonly accountId: string
  readonly postId: string
  readonly approvalId: string
  readonly testKey: string
}

/** Writes an account with credentials and a post waiting for approval, through the API. */
const writeData = async (server: TestServer): Promise<Written> => {
  const account = await server.admin<{ id: string }>(`/workspaces/${server.workspaceId}/accounts`, {
    profile_id: server.profileId,
    platform: "textpost",
    sandbox: false,
    handle: "acme_live",
    credentials
  })
  const image = await anImage(server)
  const created = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: aPost(server, [image]) })
  expect(created.status).toBe(201)
  expect(created.body.approval.status).toBe("pending")
  return {
    workspaceId: server.workspaceId,
    accountId: account.id,
    postId: created.body.id,
    approvalId: created.body.approval.id,
    testKey: server.testKey
  }
}

/** Every account's sealed credentials and every approval's token hash, straight from the database. */
const storedSecrets = (database: OpenDatabase) =>
  database.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const accounts = yield* sql<{ workspace_id: string; id: string; credentials: string }>`
        SELECT workspace_id, id, credentials FROM accounts WHERE credentials IS NOT NULL`
      const approvals = yield* sql<{ id: string; token_hash: string }>`SELECT id, token_hash FROM approvals`
      const settings = yield* sql<{ name: string; value: string }>`SELECT name, value FROM settings`
      return { accounts, approvals, settings }
    })
  )

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/**
 * Whether `candidate`, used as a master secret in every documented way, opens any stored
 * credential or makes any stored approval token.
 */
const opensAnything = (
  candidate: string,
  stored: Awaited<ReturnType<typeof storedSecrets>>
): { readonly credentials: boolean; readonly approvalLink: boolean } => {
  const keyring = Keyring.make([candidate])
  const cipher = CredentialsCipher.make(keyring)
  const opened = stored.accounts.some((row) => Option.isSome(cipher.open(row.credentials, accountContext(row.workspace_id, row.id))))
  const forged = stored.approvals.some((approval) => {
    const tokens = [
      ApprovalToken.approvalToken(keyring, approval.id),
      createHmac("sha256", candidate).update(`approval:${approval.id}`).digest("base64url")
    ]
    return tokens.some((token) => sha256(token) === approval.token_hash)
  })
  return { credentials: opened, approvalLink: forged }
}

/** A dump alone opens nothing: every value of every table, tried as the master secret. */
const expectDumpUseless = async (database: OpenDatabase, realSecrets: ReadonlyArray<string>) => {
  const stored = await storedSecrets(database)
  expect(stored.accounts.length).toBeGreaterThan(0)
  expect(stored.approvals.length).toBeGreaterThan(0)
  expect(stored.settings.map((row) => row.name)).not.toContain("server_secret")
  const dump = await dumpValues(database)
  expect(dump.tables).toEqual(expect.arrayContaining(["accounts", "approvals", "settings", "approval_tokens"]))
  const candidates = [...dump.values, ...stored.settings.map((row) => row.value)].filter((value) => value.length > 0)
  for (const candidate of candidates) {
    expect(opensAnything(candidate, stored), "a value from the dump opened something").toEqual({ credentials: false, approvalLink: false })
  }
  // The same check finds what the real secret opens, so it can fail.
  expect(realSecrets.map((secret) => opensAnything(secret, stored)).some((found) => found.credentials && found.approvalLink)).toBe(true)
}

const secretFileLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))

describe("upgrading the embedded default from a secret in the database", () => {
  it("moves the secret into the data directory, keeps links and credentials working, and reseals", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "postwire-upgrade-"))
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
    const database = await anOpenDatabase("embedded", join(dataDir, "db"))
    const before = await startServer("embedded", {}, { database })
    const written = await writeData(before)
    await before.stop()
    const legacy = randomBytes(32).toString("base64url")
    const token = await makeIt01(database, legacy, [{ ...written, credentials: JSON.stringify(credentials) }], written)

    const port = await freePort()
    const served = await serve(["--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir], {
      POSTWIRE_PUBLIC_URL: `http://127.0.0.1:${port}`
    })
    try {
      const file = join(dataDir, "secret")
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(secretFileLines(file)).toEqual([legacy])
      const page = await fetch(`http://127.0.0.1:${port}/approve/${token}`)
      expect(page.status).toBe(200)
      const post = await call(`http://127.0.0.1:${port}`, "GET", `/v1/posts/${written.postId}`, { key: written.testKey })
      expect(post.body.approval.url).toBe(`http://127.0.0.1:${port}/approve/${token}`)
    } finally {
      await stop(served.child)
    }
    expect((await storedSecrets(database)).settings.map((row) => row.name)).not.toContain("server_secret")

    const sealedCount = (await storedSecrets(database)).accounts.length
    const resealed = await run(["secrets", "reseal", "--data-dir", dataDir])
    expect(resealed).toEqual({
      code: 0,
      out: `Re-sealed ${sealedCount} credential${sealedCount === 1 ? "" : "s"} under the newest secret; 0 already were; 0 cannot be opened with any listed secret; 0 changed while this ran.\nSealed the signing secrets of 0 webhook endpoints under the newest secret; 0 already were; 0 cannot be opened with any listed secret; 0 changed while this ran.\nNo secret is left in the database.\n`
    })
    const again = await run(["secrets", "reseal", "--data-dir", dataDir])
    expect(again.out.split("\n")[0]).toBe(
      `Re-sealed 0 credentials under the newest secret; ${sealedCount} already were; 0 cannot be opened with any listed secret; 0 changed while this ran.`
    )
    const stored = await storedSecrets(database)
    const ours = stored.accounts.find((row) => row.id === written.accountId)!
    const opened = CredentialsCipher.make(Keyring.make([legacy])).open(ours.credentials, accountContext(written.workspaceId, written.accountId))
    expect(Option.map(opened, JSON.parse)).toEqual(Option.some(credentials))
    expect(ours.credentials.startsWith("pwc2.")).toBe(true)

    await expectDumpUseless(database, [legacy])
  })
})

describe.skipIf(!postgres)("upgrading PostgreSQL from a secret in the database, then rotating", () => {
  it("keeps the old secret as an older key until reseal deletes it; every listed secret verifies", async () => {
    const database = await anOpenDatabase("postgres")
    cleanups.push(database.drop)
    const onPostgres = { DATABASE_URL: postgres! }
    const first = await startServer("postgres", {}, { database })
    const written = await writeData(first)
    await first.stop()
    const legacy = randomBytes(32).toString("base64url")
    const token = await makeIt01(database, legacy, [{ ...written, credentials: JSON.stringify(credentials) }], written)

    // Not yet configured: the server still runs on the database's secret.
    const unconfigured = await startServer("postgres", { ...onPostgres, POSTWIRE_SECRET: "" }, { database })
    expect((await fetch(`${unconfigured.baseUrl}/approve/${token}`)).status).toBe(200)
    await unconfigured.stop()

    // POSTWIRE_SECRET set: new links use it, the old secret still verifies.
    const newSecret = randomBytes(32).toString("base64url")
    const configured = await startServer("postgres", { ...onPostgres, POSTWIRE_SECRET: newSecret }, { database })
    expect((await fetch(`${configured.baseUrl}/approve/${token}`)).status).toBe(200)
    const shown = await call(configured.baseUrl, "GET", `/v1/posts/${written.postId}`, { key: written.testKey })
    expect(shown.body.approval.url.endsWith(`/approve/${token}`)).toBe(true)
    const image = await anImage(configured, written.testKey)
    const fresh = await call(configured.baseUrl, "POST", "/v1/posts", { key: written.testKey, body: aPost(configured, [image]) })
    const freshToken = fresh.body.approval.url.split("/approve/")[1] as string
    expect((await fetch(`${configured.baseUrl}/approve/${freshToken}`)).status).toBe(200)
    const page = await call(configured.baseUrl, "GET", "/v1/posts?limit=1", { key: written.testKey })
    const cursor = page.body.cursor.next as string
    expect(cursor).toBeTruthy()
    await configured.stop()
    expect((await storedSecrets(database)).settings.map((row) => row.name)).toContain("server_secret")

    // Reseal: every credential under the new secret, then the old one leaves the database.
    const url = `${postgres}${postgres!.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${database.schema}`)}`
    const resealed = await run(["secrets", "reseal"], { DATABASE_URL: url, POSTWIRE_SECRET: newSecret })
    expect(resealed.code).toBe(0)
    expect(resealed.out).toMatch(
      /^Re-sealed [1-9]\d* credentials? under the newest secret; 0 already were; 0 cannot be opened with any listed secret; 0 changed while this ran\.\nSealed the signing secrets of 0 webhook endpoints under the newest secret; 0 already were; 0 cannot be opened with any listed secret; 0 changed while this ran\.\nDeleted the old secret from the database: it is no longer needed\.\n$/
    )
    await expectDumpUseless(database, [newSecret])

    // The database holds no secret any more: without POSTWIRE_SECRET nothing can start on it.
    const missing = await run(["secrets", "reseal"], { DATABASE_URL: url })
    expect(missing).toEqual({
      code: 2,
      out: "POSTWIRE_SECRET is not set: on PostgreSQL set it (or POSTWIRE_SECRET_FILE) on every instance, generated with `postwire secrets generate`.\n"
    })

    // Rotation: a newer secret first, the previous one still listed, then dropped.
    const newer = randomBytes(32).toString("base64url")
    const rotated = await startServer("postgres", { ...onPostgres, POSTWIRE_SECRET: `${newer},${newSecret}` }, { database })
    expect((await fetch(`${rotated.baseUrl}/approve/${freshToken}`)).status).toBe(200)
    expect((await call(rotated.baseUrl, "GET", `/v1/posts?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: written.testKey })).status).toBe(200)
    const rotatedView = await call(rotated.baseUrl, "GET", `/v1/posts/${fresh.body.id}`, { key: written.testKey })
    expect(rotatedView.body.approval.url.endsWith(`/approve/${freshToken}`)).toBe(true)
    await rotated.stop()
    const rotatedReseal = await run(["secrets", "reseal"], { DATABASE_URL: url, POSTWIRE_SECRET: `${newer},${newSecret}` })
    expect(rotatedReseal.code).toBe(0)
    expect(rotatedReseal.out).toMatch(/^Re-sealed [1-9]\d* credentials? under the newest secret; 0 already were;/)
    const stored = await storedSecrets(database)
    for (const row of stored.accounts) {
      expect(Option.isSome(CredentialsCipher.make(Keyring.make([newer])).open(row.credentials, accountContext(row.workspace_id, row.id)))).toBe(true)
    }

    const dropped = await startServer("postgres", { ...onPostgres, POSTWIRE_SECRET: newer }, { database })
    const stale = await call(dropped.baseUrl, "GET", `/v1/posts?limit=1&cursor=${encodeURIComponent(cursor)}`, { key: written.testKey })
    expect(stale.status).toBe(400)
    await dropped.stop()
  })
})

describe("webhook signing secrets at rest", () => {
  it("are stored sealed; reseal seals one stored before sealing, which then still signs", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "postwire-whsec-"))
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
    const database = await anOpenDatabase("embedded", join(dataDir, "db"))
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = []
    const receiver = createHttpServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => (body += chunk.toString()))
      req.on("end", () => {
        received.push({ headers: req.headers, body })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => new Promise((resolve) => receiver.close(() => resolve())))
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`
    const loopback = { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1" }
    const endpoints = () =>
      database.run(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ id: string; secret: string }>`SELECT id, secret FROM webhook_endpoints ORDER BY id`
        })
      )

    const first = await startServer("embedded", loopback, { database })
    const sealed = await call(first.baseUrl, "POST", "/v1/webhooks", { key: first.testKey, body: { url: hook, events: ["post.published"] } })
    const older = await call(first.baseUrl, "POST", "/v1/webhooks", { key: first.testKey, body: { url: hook, events: ["post.published"] } })
    expect([sealed.status, older.status]).toEqual([201, 201])
    await first.stop()
    const rows = await endpoints()
    expect(rows.map((row) => row.id).sort()).toEqual([sealed.body.id, older.body.id].sort())
    for (const row of rows) {
      expect(row.secret).toMatch(/^pwc2\./)
      expect(row.secret).not.toContain((row.id === sealed.body.id ? sealed : older).body.secret.slice("whsec_".length))
    }

    // As a version before sealing left it: the secret itself in the row.
    const legacy = `whsec_${randomBytes(32).toString("base64url")}`
    await database.run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE webhook_endpoints SET secret = ${legacy} WHERE id = ${older.body.id}`
      })
    )
    const resealed = await run(["secrets", "reseal", "--data-dir", dataDir], { POSTWIRE_SECRET: database.secret })
    expect(resealed.code).toBe(0)
    expect(resealed.out.split("\n")[1]).toBe(
      "Sealed the signing secrets of 1 webhook endpoint under the newest secret; 1 already were; 0 cannot be opened with any listed secret; 0 changed while this ran."
    )
    const after = await endpoints()
    expect(after.find((row) => row.id === sealed.body.id)?.secret).toBe(rows.find((row) => row.id === sealed.body.id)?.secret)
    const olderRow = after.find((row) => row.id === older.body.id)!
    expect(olderRow.secret).toMatch(/^pwc2\./)
    expect(olderRow.secret).not.toContain(legacy.slice("whsec_".length))

    const second = await startServer("embedded", loopback, { database })
    try {
      for (const [id, secret] of [[older.body.id, legacy], [sealed.body.id, sealed.body.secret]] as const) {
        const tested = await call(second.baseUrl, "POST", `/v1/webhooks/${id}/test`, { key: second.testKey })
        expect(tested.status).toBe(200)
        expect(tested.body.delivered).toBe(true)
        const delivery = received.at(-1)!
        const header = String(delivery.headers["service-signature"])
        const t = header.split(",")[0]!.slice(2)
        expect(header.split(",").slice(1)).toEqual([`v1=${createHmac("sha256", secret).update(`${t}.${delivery.body}`).digest("hex")}`])
      }
    } finally {
      await second.stop()
    }
  })
})
