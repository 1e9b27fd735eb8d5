/**
 * Databases as Postwire 0.1 left them: its secret in the `settings` table (`server_secret`),
 * credentials sealed `pwc1.<iv>.<ciphertext>.<tag>` under a key derived from that secret, and
 * approval tokens that are the HMAC of `approval:<id>` under the secret itself. Written here
 * from the 0.1 formats, independently of the code under test.
 */
import { createCipheriv, createHash, createHmac, hkdfSync, randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres, PgliteClient } from "@postwire/store-sql"
import { sqlStores } from "@postwire/server"
import { anEmbeddedTemplate, type Backend, type TestDatabase } from "../support/TestServer.ts"

/** A test database whose SQL a test can also run directly (while no server holds it). */
export interface OpenDatabase extends TestDatabase {
  readonly sqlLayer: () => Layer.Layer<SqlClient.SqlClient, unknown>
  readonly run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>
}

/** A database of the backend that survives server restarts (embedded: in `directory` when given). */
export const anOpenDatabase = async (backend: Backend, directory = mkdtempSync(join(tmpdir(), "postwire-legacy-"))): Promise<OpenDatabase> => {
  const secret = randomBytes(32).toString("base64url")
  if (backend === "embedded") {
    const template = await anEmbeddedTemplate()
    const sqlLayer = () => PgliteClient.layer({ dataDir: directory, template })
    return {
      backend,
      secret,
      sqlLayer,
      stores: () => sqlStores.pipe(Layer.provide(sqlLayer())),
      run: (effect) => Effect.runPromise(Effect.scoped(effect.pipe(Effect.provide(sqlLayer())))),
      firstRun: undefined,
      drop: async () => rmSync(directory, { recursive: true, force: true })
    }
  }
  const url = process.env.DATABASE_URL
  if (!url) throw new Error("DATABASE_URL is not set")
  const schema = `pw_legacy_${randomBytes(6).toString("hex")}`
  const onServer = (statement: string) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(layerPostgres(url, { maxConnections: 1 })))
    )
  await onServer(`CREATE SCHEMA ${schema}`)
  const sqlLayer = () => layerPostgres(url, { searchPath: schema, maxConnections: 2 })
  return {
    backend,
    secret,
    schema,
    sqlLayer,
    stores: () => sqlStores.pipe(Layer.provide(sqlLayer())),
    run: (effect) => Effect.runPromise(Effect.scoped(effect.pipe(Effect.provide(sqlLayer())))),
    firstRun: undefined,
    drop: () => onServer(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  }
}

/** How 0.1 sealed credentials. */
export const seal01 = (secret: string, plaintext: string, workspaceId: string, accountId: string): string => {
  const key = Buffer.from(hkdfSync("sha256", secret, "postwire", "postwire/credentials/v1", 32))
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(`${workspaceId}/${accountId}`))
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return ["pwc1", iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".")
}

/** How 0.1 made an approval's token. */
export const token01 = (secret: string, approvalId: string): string =>
  createHmac("sha256", secret).update(`approval:${approvalId}`).digest("base64url")

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/**
 * Turns a database written by this version into what 0.1 would have left: `legacy` in the
 * settings table, the given accounts' credentials sealed the 0.1 way, and the approval's token
 * the 0.1 one. Returns that approval token.
 */
export const makeIt01 = (
  database: OpenDatabase,
  legacy: string,
  accounts: ReadonlyArray<{ readonly workspaceId: string; readonly accountId: string; readonly credentials: string }>,
  approval: { readonly workspaceId: string; readonly approvalId: string }
) =>
  database.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO settings (name, value) VALUES ('server_secret', ${legacy})`
      for (const account of accounts) {
        const sealed = seal01(legacy, account.credentials, account.workspaceId, account.accountId)
        yield* sql`UPDATE accounts SET credentials = ${sealed} WHERE workspace_id = ${account.workspaceId} AND id = ${account.accountId}`
      }
      const token = token01(legacy, approval.approvalId)
      yield* sql`UPDATE approvals SET token_hash = ${sha256(token)} WHERE workspace_id = ${approval.workspaceId} AND id = ${approval.approvalId}`
      yield* sql`UPDATE approval_tokens SET token_hash = ${sha256(token)} WHERE approval_id = ${approval.approvalId}`
      return token
    })
  )

/** Every text value in every table of the database: what a dump holds. */
export const dumpValues = (database: OpenDatabase) =>
  database.run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const tables = yield* sql<{ table_name: string }>`
        SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
      const values = new Set<string>()
      for (const { table_name } of tables) {
        const rows = yield* sql.unsafe<Record<string, unknown>>(`SELECT * FROM "${table_name}"`)
        for (const row of rows) {
          for (const value of Object.values(row)) {
            if (typeof value === "string") values.add(value)
            else if (value !== null && typeof value === "object") values.add(JSON.stringify(value))
          }
        }
      }
      return { tables: tables.map((t) => t.table_name), values: [...values] }
    })
  )
