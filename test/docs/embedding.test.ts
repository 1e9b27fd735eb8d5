/**
 * The two samples of docs/embedding.md a reader runs one after the other in one project folder:
 * the engine sample, then the `makeHandler` sample. Each is read from the page and run as a
 * program of its own (Node with tsx, the packages from source), in a fresh folder, as written
 * apart from the port (3000 may be taken on the machine running the suite).
 *
 * The handler sample must not land on the engine's data: on a database that has data, the first
 * start's set-up is not made, and a reader has no key to call the API with (finding 9 of #39).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { platforms } from "@postwire/domain"
import { afterAll, describe, expect, it } from "vitest"
import { aPng } from "../support/Media.ts"
import { aFreePort } from "../support/Connect.ts"
import { blocksOf, root } from "./samples.ts"

const run = promisify(execFile)
const node = ["--conditions=@postwire/source", "--import", "tsx"]

/** The ts block of docs/embedding.md right under `heading`. */
const sampleUnder = (heading: string): string => {
  const page = blocksOf("docs/embedding.md")
  const lines = readFileSync(join(root, "docs/embedding.md"), "utf8").split("\n")
  const at = lines.findIndex((line) => line.trim() === heading)
  const block = page.find((each) => each.language === "ts" && each.line > at)
  if (at < 0 || block === undefined) throw new Error(`no ts block under "${heading}" in docs/embedding.md`)
  return block.code
}

describe("docs/embedding.md's samples, run in one folder one after the other", () => {
  const work = mkdtempSync(join(tmpdir(), "postwire-docs-embedding-"))
  // The folder's packages are the repository's, as `npm install` would have put them there.
  symlinkSync(join(root, "node_modules"), join(work, "node_modules"), "dir")
  // An ES module project: the samples use top-level await.
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module" }))
  const children: Array<ChildProcess> = []

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGKILL")
        await exited
      }
    }
    rmSync(work, { recursive: true, force: true })
  })

  it("the engine sample publishes; then the makeHandler sample prints a test key that calls the API", async () => {
    writeFileSync(join(work, "launch.png"), aPng({ width: 1080, height: 1080 }))
    writeFileSync(join(work, "engine.ts"), sampleUnder("## Embed the engine"))
    const engine = await run(process.execPath, [...node, "engine.ts"], { cwd: work, env: { ...process.env }, maxBuffer: 16 * 1024 * 1024 })
    expect(engine.stdout).toMatch(/post_\S+ queued/)

    const port = await aFreePort()
    writeFileSync(join(work, "mount.ts"), sampleUnder("## Mount the server in an existing app").replaceAll("3000", String(port)))
    const handler = spawn(process.execPath, [...node, "mount.ts"], { cwd: work, env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] })
    children.push(handler)
    let output = ""
    const printed = await new Promise<{ key: string; admin: string }>((resolve, reject) => {
      const look = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        const key = /test key: (svc_test_\S+)/.exec(output)?.[1]
        const admin = /admin token: (pwadm_\S+)/.exec(output)?.[1]
        if (key !== undefined && admin !== undefined) resolve({ key, admin })
      }
      handler.stdout!.on("data", look)
      handler.stderr!.on("data", look)
      handler.once("exit", (code) => reject(new Error(`the makeHandler sample exited (${code}) before printing a test key and an admin token:\n${output}`)))
      // A bounded wait: a sample that prints nothing runs on, serving, and would never say so.
      setTimeout(() => reject(new Error(`the makeHandler sample printed no test key and admin token in 150 s:\n${output}`)), 150_000).unref()
    })

    const accounts = await fetch(`http://localhost:${port}/postwire/v1/accounts`, { headers: { authorization: `Bearer ${printed.key}` } })
    expect(accounts.status).toBe(200)
    // One sandbox account per built-in platform.
    expect(((await accounts.json()) as { data: Array<unknown> }).data).toHaveLength(platforms.length)
    const admin = await fetch(`http://localhost:${port}/postwire/admin/v1/workspaces`, { headers: { authorization: `Bearer ${printed.admin}` } })
    expect(admin.status).toBe(200)
    // It logs no token, only what the page says it logs.
    expect(output.replace(`test key: ${printed.key}`, "").replace(`admin token: ${printed.admin}`, "")).not.toMatch(/svc_test_|pwadm_/)

    // "When it cannot start": both calls of that sample, pointed at the directory the running
    // handler holds, print the one-line cause and fix, then the fields the sample reads.
    writeFileSync(join(work, "start-error.ts"), sampleUnder("### When it cannot start").replaceAll('"./.postwire"', '"./.postwire-app"'))
    const refused = await run(process.execPath, [...node, "start-error.ts"], { cwd: work, env: { ...process.env }, maxBuffer: 16 * 1024 * 1024 })
    const held = `The data directory ./.postwire-app is in use by another Postwire process (pid ${handler.pid}).\nStop that process, or give this one its own directory with the \`dataDir\` option.\n(./.postwire-app is held by process ${handler.pid})`
    expect(refused.stderr.split(held).length - 1, refused.stderr).toBe(2)

    // SIGTERM: the sample stops the background work, closes the server and the database, and exits.
    const exited = new Promise<number | null>((resolve) => handler.once("exit", resolve))
    handler.kill("SIGTERM")
    expect(await exited).toBe(0)
  }, 300_000)
})
