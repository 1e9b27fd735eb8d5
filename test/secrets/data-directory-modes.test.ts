/**
 * The embedded data directory is its owner's alone (issue #37, F5): `postwire serve`, started
 * under umask `0000` and `0022`, leaves every directory `0700` and every file `0600` in it
 * (the database PGlite writes, WAL segments included, the secret, the lock, media and mail),
 * while it runs and after it stops; and a directory an older version left world-writable is
 * repaired at the next start (what Postwire keeps there; an operator's own file is left alone,
 * out of other users' reach behind the 0700 directory).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { eventually } from "../support/Eventually.ts"
import { aPng } from "../support/Media.ts"
import { afterAll, describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

interface Running {
  readonly child: ChildProcess
  readonly output: () => string
}

/** Starts `postwire serve` under `umask` (through the shell, as an operator's would) and waits until it listens. */
const serve = (umask: string, port: number, dataDir: string) =>
  new Promise<Running>((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", `umask ${umask} && exec "$0" "$@"`, process.execPath, bin, "serve", "--port", String(port), "--data-dir", dataDir], {
      env: { ...process.env, DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("Try it:") || (out.includes("listening") && out.includes("OpenAPI"))) resolve({ child, output: () => out })
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)))
  })

const stop = (running: Running) =>
  new Promise<void>((resolve) => {
    running.child.removeAllListeners("exit")
    running.child.on("exit", () => resolve())
    running.child.kill("SIGTERM")
  })

/** Every path under `root` (itself included) whose mode lets group or others in, with that mode. */
const notPrivate = (root: string): Array<string> => {
  const found: Array<string> = []
  const walk = (path: string) => {
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) return
    const mode = stat.mode & 0o777
    if (stat.isDirectory() ? mode !== 0o700 : (mode & 0o077) !== 0) found.push(`${path.slice(root.length) || "/"} ${mode.toString(8)}`)
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry))
  }
  walk(root)
  return found
}

/** Every file under `root`. */
const filesUnder = (root: string): Array<string> =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))

/** Uses the server the way that writes files: media, a post whose approval is mailed, many rows (WAL). */
const useIt = async (port: number, key: string) => {
  const base = `http://127.0.0.1:${port}`
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  const media = (await (
    await fetch(`${base}/v1/media`, {
      method: "POST",
      headers,
      body: JSON.stringify({ data: Buffer.from(aPng({ width: 4, height: 4 })).toString("base64"), filename: "tiny.png" })
    })
  ).json()) as { id: string }
  const accounts = (await (await fetch(`${base}/v1/accounts`, { headers })).json()) as {
    data: Array<{ id: string; platform: string; profile_id: string }>
  }
  const photo = accounts.data.find((a) => a.platform === "photo")!
  for (let i = 0; i < 20; i++) {
    const reply = await fetch(`${base}/v1/posts`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        profile_id: photo.profile_id,
        caption: `Private ${i}`,
        media: [media.id],
        targets: [{ account_id: photo.id }],
        approval: { notify: { email: "approver@example.com" } }
      })
    })
    expect(reply.status).toBe(201)
  }
}

describe("the embedded data directory", () => {
  const directories: Array<string> = []
  afterAll(() => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true })
  })

  it.each(["0000", "0022"])("is owner-only under umask %s, while the server runs and after it stops", async (umask) => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "postwire-modes-")), "data")
    directories.push(dataDir)
    const port = await freePort()
    const running = await serve(umask, port, dataDir)
    try {
      // The log lines (stderr) can arrive before the first start's key (stdout): wait for the key.
      const key = await eventually(() => running.output().match(/svc_test_[A-Za-z0-9_-]+/)?.[0], "the first start's test key in the output")
      await useIt(port, key!)
      const files = filesUnder(dataDir)
      // What the check covers: the database (WAL included), media, mail and the secret.
      expect(files.some((f) => f.includes(`${join("db", "pg_wal")}`))).toBe(true)
      expect(files.some((f) => f.includes(join(dataDir, "mail")))).toBe(true)
      expect(files.some((f) => f.includes(join(dataDir, "media")))).toBe(true)
      expect(files.length).toBeGreaterThan(500)
      expect(notPrivate(dataDir)).toEqual([])
    } finally {
      await stop(running)
    }
    expect(notPrivate(dataDir)).toEqual([])
  })

  it("repairs a data directory an older version left open to others, at the next start", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "postwire-modes-")), "data")
    directories.push(dataDir)
    await stop(await serve("0077", await freePort(), dataDir))
    // As 0.5 left it under umask 0000: every directory 0777, every file 0666 but the secret (0.5
    // wrote it 0600 and refused to start otherwise, as this version does).
    const opened = (path: string) => {
      const stat = lstatSync(path)
      if (path !== join(dataDir, "secret")) chmodSync(path, stat.isDirectory() ? 0o777 : 0o666)
      if (stat.isDirectory()) for (const entry of readdirSync(path)) opened(join(path, entry))
    }
    opened(dataDir)
    // Something of the operator's beside Postwire's own, which a start must not touch.
    const theirs = join(dataDir, "operator-notes.txt")
    writeFileSync(theirs, "mine")
    chmodSync(theirs, 0o644)
    expect(notPrivate(dataDir).length).toBeGreaterThan(500)
    const running = await serve("0022", await freePort(), dataDir)
    try {
      expect(notPrivate(dataDir)).toEqual(["/operator-notes.txt 644"])
    } finally {
      await stop(running)
    }
  })
})
