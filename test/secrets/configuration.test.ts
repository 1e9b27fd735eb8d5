import { spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProblem, resolveSettings, ServerSecrets } from "@postwire/server"
import { Redacted } from "effect"
import { afterAll, describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

/** Runs `postwire` to its end: exit code and everything it printed. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, DATABASE_URL: "", POSTWIRE_SECRET: "", POSTWIRE_SECRET_FILE: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

/** Starts `postwire` and resolves once it says it listens; `stop` kills it. */
const startUntilListening = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ stop: () => void; output: () => string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, DATABASE_URL: "", POSTWIRE_SECRET: "", POSTWIRE_SECRET_FILE: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    const seen = (c: Buffer) => {
      out += c.toString()
      if (out.includes("Postwire is listening")) resolve({ stop: () => void child.kill("SIGTERM"), output: () => out })
    }
    child.stdout.on("data", seen)
    child.stderr.on("data", seen)
    child.on("exit", (code) => reject(new Error(`postwire exited with ${code}:\n${out}`)))
  })

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const directories: Array<string> = []
const aDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), "postwire-secrets-"))
  directories.push(directory)
  return directory
}
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const strong = "Jd8vQ2mX9pL4rT7wZ1nB6cF3hK5sY0aE-_uV"
const older = "older-secret_with.enough~variety:0123456789ABCDEF"

const secretsOf = (env: Record<string, string>) => resolveSettings({}, env).secrets.map(Redacted.value)

describe("POSTWIRE_SECRET", () => {
  it("takes several secrets, newest first, separated by commas", () => {
    expect(secretsOf({ POSTWIRE_SECRET: `${strong}, ${older}` })).toEqual([strong, older])
  })

  it.each([
    ["a short one", "abcdefghijklmnopqrstuvwxyz", "Invalid configuration POSTWIRE_SECRET: the secret is too short (26 characters, at least 32); generate one with `postwire secrets generate`"],
    ["a weak one", "ab".repeat(20), "Invalid configuration POSTWIRE_SECRET: the secret is too weak (fewer than 16 different characters); generate one with `postwire secrets generate`"],
    ["an empty entry", `${strong},,${older}`, "Invalid configuration POSTWIRE_SECRET: secret 2 of 3 is too short (0 characters, at least 32); generate one with `postwire secrets generate`"],
    ["one with a space", `${strong.slice(0, 20)} ${strong.slice(20)}`, "Invalid configuration POSTWIRE_SECRET: the secret has a character outside printable ASCII, a space or a comma; generate one with `postwire secrets generate`"],
    ["the same twice", `${strong},${strong}`, "Invalid configuration POSTWIRE_SECRET: secret 2 of 2 is listed twice"]
  ])("refuses %s, naming the problem but never the secret", (_, value, message) => {
    const thrown = (() => {
      try {
        resolveSettings({}, { POSTWIRE_SECRET: value })
        return undefined
      } catch (error) {
        return error
      }
    })()
    expect(thrown).toBeInstanceOf(ConfigProblem)
    expect((thrown as Error).message).toBe(message)
    expect((thrown as Error).message).not.toContain(strong)
  })

  it("reads POSTWIRE_SECRET_FILE: one per line, newest first, comments and blank lines ignored", () => {
    const file = join(aDirectory(), "secrets")
    writeFileSync(file, `# rotated 2026-11-25\n${strong}\r\n\n  ${older}  \n`)
    expect(secretsOf({ POSTWIRE_SECRET_FILE: file })).toEqual([strong, older])
  })

  it("refuses POSTWIRE_SECRET and POSTWIRE_SECRET_FILE together, and a file it cannot read", () => {
    expect(() => resolveSettings({}, { POSTWIRE_SECRET: strong, POSTWIRE_SECRET_FILE: "/x" })).toThrow(
      "Invalid configuration POSTWIRE_SECRET: set it or POSTWIRE_SECRET_FILE, not both"
    )
    const missing = join(aDirectory(), "missing")
    expect(() => resolveSettings({}, { POSTWIRE_SECRET_FILE: missing })).toThrow(
      `Invalid configuration POSTWIRE_SECRET_FILE: cannot read ${missing} (ENOENT)`
    )
  })
})

describe("the data directory's secret file", () => {
  it("is created whole with mode 0600, and never replaced by a process that comes second", () => {
    const directory = aDirectory()
    const path = join(directory, "secret")
    expect(ServerSecrets.createSecretFile(path, [strong])).toBe(true)
    expect(ServerSecrets.createSecretFile(path, [older])).toBe(false)
    expect(readFileSync(path, "utf8")).toContain(strong)
    expect(readFileSync(path, "utf8")).not.toContain(older)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(directory)).toEqual(["secret"])
  })
})

describe("postwire secrets and serve", () => {
  it("generate prints a new strong secret each time, one that the configuration accepts", async () => {
    const first = await run(["secrets", "generate"])
    const second = await run(["secrets", "generate"])
    expect(first.code).toBe(0)
    expect(first.out).toMatch(/^[A-Za-z0-9_-]{43}\n$/)
    expect(second.out).not.toBe(first.out)
    expect(secretsOf({ POSTWIRE_SECRET: first.out.trim() })).toEqual([first.out.trim()])
  })

  it("serve with a weak POSTWIRE_SECRET exits 2 with one line", async () => {
    const result = await run(["serve", "--port", String(await freePort()), "--data-dir", aDirectory()], { POSTWIRE_SECRET: "password" })
    expect(result).toEqual({
      code: 2,
      out: "Invalid configuration POSTWIRE_SECRET: the secret is too short (8 characters, at least 32); generate one with `postwire secrets generate`\n"
    })
  })

  it("the embedded default generates its secret once into the data directory, mode 0600, never into the database", async () => {
    const dataDir = aDirectory()
    const first = await run(["secrets", "reseal", "--data-dir", dataDir])
    expect(first.code).toBe(0)
    const file = join(dataDir, "secret")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const written = readFileSync(file, "utf8")
    const secret = written.split("\n").filter((line) => line !== "" && !line.startsWith("#"))
    expect(secret).toHaveLength(1)
    expect(secret[0]).toMatch(/^[A-Za-z0-9_-]{43}$/)
    await run(["secrets", "reseal", "--data-dir", dataDir])
    expect(readFileSync(file, "utf8")).toBe(written)
  })

  it("refuses to start when the data directory's secret file is readable by others", async () => {
    const dataDir = aDirectory()
    const file = join(dataDir, "secret")
    writeFileSync(file, `${strong}\n`)
    chmodSync(file, 0o644)
    const result = await run(["serve", "--port", String(await freePort()), "--data-dir", dataDir])
    expect(result).toEqual({
      code: 2,
      out: `The secret file ${file} can be read by other users (mode 0644): restrict it with \`chmod 600 ${file}\`.\n`
    })
  })

  it("refuses to start when the data directory's secret file holds no usable secret", async () => {
    const dataDir = aDirectory()
    const file = join(dataDir, "secret")
    writeFileSync(file, "# nothing here\n", { mode: 0o600 })
    const result = await run(["serve", "--port", String(await freePort()), "--data-dir", dataDir])
    expect(result).toEqual({
      code: 2,
      out: `The secret file ${file} is unusable: holds no secret; restore it from a backup (docs/operations.md).\n`
    })
  })

  it.each(process.env.DATABASE_URL ? ["postgres"] : [])(
    "on %s: refuses to start without POSTWIRE_SECRET with one line, and keeps no secret in the database",
    async () => {
      const database = await freshDatabase()
      const dataDir = aDirectory()
      const refused = await run(["serve", "--port", String(await freePort()), "--data-dir", dataDir], { DATABASE_URL: database })
      expect(refused).toEqual({
        code: 2,
        out: "POSTWIRE_SECRET is not set: on PostgreSQL set it (or POSTWIRE_SECRET_FILE) on every instance, generated with `postwire secrets generate`.\n"
      })
      expect(existsSync(join(dataDir, "secret"))).toBe(false)

      // With the secret the same database serves, and holds no secret of its own.
      const port = await freePort()
      const served = await startUntilListening(["serve", "--port", String(port), "--data-dir", dataDir], { DATABASE_URL: database, POSTWIRE_SECRET: strong })
      expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200)
      served.stop()
      const settings = await rowsOf(database, "SELECT name FROM settings")
      expect(settings.map((row) => row.name)).not.toContain("server_secret")
    }
  )
})

/** A URL of a fresh, empty schema of the test PostgreSQL (dropped after the suite). */
const freshDatabase = async () => {
  const { SqlClient } = await import("effect/sql")
  const { Effect } = await import("effect")
  const { layerPostgres } = await import("@postwire/store-sql")
  const url = process.env.DATABASE_URL!
  const schema = `pw_secret_${Math.random().toString(36).slice(2, 10)}`
  const exec = (statement: string) =>
    Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(statement)
      }).pipe(Effect.provide(layerPostgres(url, { maxConnections: 1 })))
    )
  await exec(`CREATE SCHEMA ${schema}`)
  cleanups.push(() => exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
  return `${url}${url.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`
}
/** The rows a query answers on a database URL. */
const rowsOf = async (url: string, statement: string) => {
  const { SqlClient } = await import("effect/sql")
  const { Effect } = await import("effect")
  const { layerPostgres } = await import("@postwire/store-sql")
  return Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return (yield* sql.unsafe(statement)) as ReadonlyArray<Record<string, unknown>>
    }).pipe(Effect.provide(layerPostgres(url, { maxConnections: 1 })))
  )
}
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup()
})
