import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { Migrations, PgliteClient } from "@postwire/store-sql"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

/** Runs `postwire` to its end: exit code and everything it printed. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, DATABASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (out += c.toString()))
    child.on("exit", (code) => resolve({ code, out }))
  })

/** Starts `postwire serve` and waits until it listens. */
const serve = (args: ReadonlyArray<string>) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", ...args], {
      env: { ...process.env, DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("OpenAPI")) resolve(child)
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

const listening = () =>
  new Promise<{ server: Server; port: number }>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port }))
  })

const freePort = async () => {
  const { server, port } = await listening()
  await new Promise((resolve) => server.close(resolve))
  return port
}

const directories: Array<string> = []
const aDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "postwire-fail-"))
  directories.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

describe("postwire serve: start-up failures are one or two lines, exit 1", () => {
  it("names an unreachable PostgreSQL and says to start it", async () => {
    const port = await freePort()
    const result = await run(["serve", "--port", "8090"], { DATABASE_URL: `postgres://postgres:secret-pw@127.0.0.1:${port}/test` })
    expect(result.code).toBe(1)
    expect(result.out).toBe(`PostgreSQL is not reachable at 127.0.0.1:${port}/test (ECONNREFUSED).\nStart it, or correct DATABASE_URL.\n`)
  })

  it.each(process.env.DATABASE_URL ? ["postgres"] : [])("names credentials %s refuses, without printing the password", async () => {
    const url = new URL(process.env.DATABASE_URL ?? "")
    url.username = "postwire_no_such_role"
    url.password = "secret-pw"
    const result = await run(["serve", "--port", "8090"], { DATABASE_URL: url.href })
    expect(result.code).toBe(1)
    expect(result.out).toBe(
      `PostgreSQL at ${url.hostname}:${url.port || "5432"}${url.pathname} refused the credentials: role "postwire_no_such_role" does not exist.\nCorrect the user and password in DATABASE_URL.\n`
    )
    expect(result.out).not.toContain("secret-pw")
  })

  it("names a data directory that cannot be written", async () => {
    const file = join(aDataDir(), "a-file")
    writeFileSync(file, "")
    const result = await run(["serve", "--data-dir", join(file, "data")])
    expect(result.code).toBe(1)
    expect(result.out).toBe(
      `Cannot write to the data directory ${join(file, "data")} (ENOTDIR).\nChoose a writable directory with --data-dir or POSTWIRE_DATA_DIR.\n`
    )
  })

  it("names a port in use", async () => {
    const { server, port } = await listening()
    try {
      const result = await run(["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", aDataDir()])
      expect(result.code).toBe(1)
      expect(result.out).toBe(
        `Port ${port} is already in use on 127.0.0.1.\nStop the process using it, or choose another port with --port or PORT.\n`
      )
    } finally {
      server.close()
    }
  })

  it("names an unknown host to listen on", async () => {
    const result = await run(["serve", "--host", "no-such-host.invalid", "--port", String(await freePort()), "--data-dir", aDataDir()])
    expect(result.code).toBe(1)
    expect(result.out).toBe(
      "Cannot listen on no-such-host.invalid: no such host.\nChoose an address of this machine with --host or HOST (0.0.0.0 listens on every address).\n"
    )
  })

  it("prints the full cause after the line with --debug", async () => {
    const { server, port } = await listening()
    try {
      const result = await run(["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", aDataDir(), "--debug"])
      expect(result.code).toBe(1)
      expect(result.out.startsWith(`Port ${port} is already in use on 127.0.0.1.\n`)).toBe(true)
      expect(result.out).toContain("EADDRINUSE")
      expect(result.out.split("\n").length).toBeGreaterThan(3)
    } finally {
      server.close()
    }
  })

  it("refuses an unknown flag with exit code 2 in two lines, and --help exits 0", async () => {
    const bad = await run(["serve", "--prot", "8080"])
    expect(bad.code).toBe(2)
    expect(bad.out).toBe("Unknown option '--prot'\nRun `postwire serve --help` for the options.\n")
    const help = await run(["serve", "--help"])
    expect(help.code).toBe(0)
    expect(help.out).toContain("--debug")
    expect(help.out).not.toMatch(/^\s+at /m)
  })
})

describe("one process per embedded data directory", () => {
  it("refuses a second server on the directory, naming the holder's pid, and takes over a stale lock", async () => {
    const dataDir = aDataDir()
    const first = await serve(["--port", String(await freePort()), "--data-dir", dataDir])
    try {
      const holder = readFileSync(join(dataDir, "postwire.lock"), "utf8").trim()
      expect(holder).toMatch(/^\d+$/)
      const second = await run(["serve", "--port", String(await freePort()), "--data-dir", dataDir])
      expect(second.code).toBe(1)
      expect(second.out).toBe(
        `The data directory ${dataDir} is in use by another Postwire process (pid ${holder}).\nStop that process, or give this one its own directory with --data-dir or POSTWIRE_DATA_DIR.\n`
      )
      const migrate = await run(["migrate", "--data-dir", dataDir])
      expect(migrate.code).toBe(1)
      expect(migrate.out).toContain(`in use by another Postwire process (pid ${holder})`)
    } finally {
      await stop(first)
    }
    expect(existsSync(join(dataDir, "postwire.lock"))).toBe(false)

    // A lock left by a process that was killed: its pid no longer runs.
    const gone = spawn(process.execPath, ["-e", ""])
    await new Promise((resolve) => gone.on("exit", resolve))
    writeFileSync(join(dataDir, "postwire.lock"), `${gone.pid}\n`)
    const next = await serve(["--port", String(await freePort()), "--data-dir", dataDir])
    try {
      const holder = readFileSync(join(dataDir, "postwire.lock"), "utf8").trim()
      expect(holder).not.toBe(String(gone.pid))
    } finally {
      await stop(next)
    }
  })
})

describe("postwire migrate", () => {
  it("creates a fresh database from the packaged template, already migrated, then reports it up to date", async () => {
    const dataDir = aDataDir()
    // A fresh embedded data directory is unpacked from the template store-sql ships, which holds
    // every migration: nothing is left to apply (docs/performance.md, "the first start").
    const latest = Migrations.known[Migrations.known.length - 1]
    const first = await run(["migrate", "--data-dir", dataDir])
    expect(first.code).toBe(0)
    expect(first.out).toBe(`The database is up to date (${latest}).\n`)
    const again = await run(["migrate", "--data-dir", dataDir])
    expect(again.code).toBe(0)
    expect(again.out).toBe(`The database is up to date (${latest}).\n`)
  })

  it("and serve refuse, in one line, a database migrated by a newer version", async () => {
    const dataDir = aDataDir()
    expect((await run(["migrate", "--data-dir", dataDir])).code).toBe(0)
    await Effect.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO postwire_migrations (migration_id, name) VALUES (9001, 'from_the_future')`
      }).pipe(Effect.provide(PgliteClient.layer({ dataDir: join(dataDir, "db") })))
    )
    const expected =
      "The database was migrated by a newer version of Postwire (it has 9001_from_the_future, which this version does not know).\nRun the newer version, or restore a backup taken before the upgrade.\n"
    const served = await run(["serve", "--port", String(await freePort()), "--data-dir", dataDir])
    expect(served.code).toBe(1)
    expect(served.out).toBe(expected)
    const migrated = await run(["migrate", "--data-dir", dataDir])
    expect(migrated.code).toBe(1)
    expect(migrated.out).toBe(expected)
  })
})

describe("postwire admin: an unreachable or foreign server is one or two lines, exit 1", () => {
  it("says the server is not reachable at its address", async () => {
    const port = await freePort()
    const result = await run(["admin", "workspace", "list", "--url", `http://127.0.0.1:${port}`, "--admin-token", "pwadm_x"])
    expect(result.code).toBe(1)
    expect(result.out).toBe(`Postwire server not reachable at http://127.0.0.1:${port} (ECONNREFUSED).\nStart it, or point to it with --url.\n`)
  })

  it("says an answer that is not JSON does not come from Postwire, for a success and for a failure", async () => {
    let status = 200
    const foreign = createHttpServer((_request, response) => {
      response.writeHead(status, { "content-type": "text/html" }).end("<html><body>Welcome to nginx!</body></html>")
    })
    await new Promise<void>((resolve) => foreign.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(foreign.address() as { port: number }).port}`
    try {
      const expected = (code: number) =>
        `The server at ${url} answered HTTP ${code} with something that is not Postwire's JSON.\nCheck that --url points to a Postwire server.\n`
      const list = await run(["admin", "workspace", "list", "--url", url, "--admin-token", "pwadm_x"])
      expect(list.code).toBe(1)
      expect(list.out).toBe(expected(200))
      const create = await run(["admin", "workspace", "create", "--name", "acme", "--url", url, "--admin-token", "pwadm_x"])
      expect(create.code).toBe(1)
      expect(create.out).toBe(expected(200))
      status = 502
      const failed = await run(["admin", "workspace", "create", "--name", "acme", "--json", "--url", url, "--admin-token", "pwadm_x"])
      expect(failed.code).toBe(1)
      expect(failed.out).toBe(expected(502))
    } finally {
      foreign.close()
    }
  })
})
