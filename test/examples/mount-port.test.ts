/**
 * The mount examples run as their READMEs say (a process of their own), on the port `PORT` names:
 * no hard-coded port 3000 that another app on the machine may hold, the addresses printed, and a
 * port in use said in one line with the way out.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const tsx = import.meta.resolve("tsx")

/** A server holding a port; `port` is the one it holds. */
const holdAPort = () =>
  new Promise<{ server: Server; port: number }>((done, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (typeof address === "object" && address !== null) done({ server, port: address.port })
      else reject(new Error("no port"))
    })
  })

/** Runs an example as `node main.ts` in an empty directory, with `PORT` set. */
const runExample = (name: string, port: number, cwd: string) => {
  const child = spawn(process.execPath, ["--conditions=@postwire/source", "--import", tsx, join(root, "examples", name, "main.ts")], {
    cwd,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    output += chunk.toString()
  })
  return { child, output: () => output }
}

/** Resolves with the output once `pattern` shows in it, or rejects when the process ends first. */
const untilPrinted = (run: ReturnType<typeof runExample>, pattern: RegExp) =>
  new Promise<string>((done, reject) => {
    const check = () => {
      if (pattern.test(run.output())) done(run.output())
    }
    run.child.stdout!.on("data", check)
    run.child.stderr!.on("data", check)
    run.child.once("exit", (code) => (pattern.test(run.output()) ? done(run.output()) : reject(new Error(`exited with ${code}:\n${run.output()}`))))
  })

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((done) => child.once("exit", done))
  child.kill("SIGTERM")
  await exited
}

describe.each(["mount-express", "mount-node-http"])("examples/%s as a process", (name) => {
  const cwd = mkdtempSync(join(tmpdir(), `postwire-${name}-`))
  afterAll(() => rmSync(cwd, { recursive: true, force: true }))

  it("listens on the port PORT names and prints its addresses there", async () => {
    // A port that was free a moment ago: released just before the example takes it.
    const held = await holdAPort()
    await new Promise((done) => held.server.close(done))
    const run = runExample(name, held.port, cwd)
    try {
      const output = await untilPrinted(run, /App on \S+, Postwire API on \S+, docs on \S+/)
      expect(output).toContain(`App on http://localhost:${held.port}, Postwire API on http://localhost:${held.port}/postwire/v1, docs on http://localhost:${held.port}/postwire/docs`)
      const accounts = await fetch(`http://127.0.0.1:${held.port}/postwire/v1/accounts`)
      expect(accounts.status).toBe(401)
    } finally {
      await stop(run.child)
    }
  })

  it("says in one line that a port in use is taken and how to choose another, and exits 1", async () => {
    const held = await holdAPort()
    try {
      const run = runExample(name, held.port, cwd)
      const code = await new Promise<number | null>((done) => run.child.once("exit", done))
      expect(code).toBe(1)
      expect(run.output().trim()).toBe(`Port ${held.port} is already in use: set PORT to another one, e.g. PORT=3001 (or PORT=0 for any free port).`)
    } finally {
      await new Promise((done) => held.server.close(done))
    }
  })
})
