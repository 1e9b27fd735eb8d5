/**
 * Statements and round trips per request, counted on the wire: Postwire (and the baseline) talk
 * to PostgreSQL through a small TCP relay that reads the frontend messages of the PostgreSQL
 * protocol. A statement is an Execute (extended protocol) or a Query (simple protocol); a round
 * trip is a Sync or a Query, after which the client waits for the server. Counts do not depend on
 * the machine's load. Needs `DATABASE_URL`.
 */
import { randomUUID } from "node:crypto"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { aPng } from "../test/support/Media.ts"
import { freePort, serve, table } from "./support.ts"

/** Counts of what went through the relay. */
interface Counts {
  statements: number
  roundTrips: number
}

/** A relay to `target` counting the frontend messages of every connection (the dispatcher bench uses it too). */
export const relay = async (target: URL) => {
  const counts: Counts = { statements: 0, roundTrips: 0 }
  const port = await freePort()
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    // As the drivers do: no Nagle delay added to the messages relayed.
    client.setNoDelay(true)
    upstream.setNoDelay(true)
    let pending = Buffer.alloc(0)
    let started = false
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk)
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        if (!started) {
          // The startup packet (and an SSL or GSS request before it) has no type byte.
          if (pending.length < 8) break
          const length = pending.readInt32BE(0)
          if (pending.length < length) break
          const code = pending.readInt32BE(4)
          pending = pending.subarray(length)
          if (code !== 80877103 && code !== 80877104) started = true
          continue
        }
        if (pending.length < 5) break
        const type = String.fromCharCode(pending[0]!)
        const length = pending.readInt32BE(1)
        if (pending.length < 1 + length) break
        if (type === "E") counts.statements++
        if (type === "S") counts.roundTrips++
        if (type === "Q") {
          counts.statements++
          counts.roundTrips++
        }
        pending = pending.subarray(1 + length)
      }
    })
    upstream.on("data", (chunk) => client.write(chunk))
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()))
  const via = new URL(target)
  via.hostname = "127.0.0.1"
  via.port = String(port)
  return {
    url: via.toString(),
    counts,
    reset: () => {
      counts.statements = 0
      counts.roundTrips = 0
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const requests = 50

const perRequest = async (
  label: string,
  wire: Awaited<ReturnType<typeof relay>>,
  send: () => Promise<Response>
) => {
  // Warm: caches filled, statements prepared.
  for (let i = 0; i < 5; i++) await (await send()).arrayBuffer()
  wire.reset()
  for (let i = 0; i < requests; i++) {
    const response = await send()
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`${label}: ${response.status}`)
  }
  // Background loops (publisher, dispatcher) add what they add while the requests run.
  return {
    run: label,
    statements_per_request: wire.counts.statements / requests,
    round_trips_per_request: wire.counts.roundTrips / requests
  }
}

/** Runs the wire count. */
export const run = async (): Promise<void> => {
  const url = process.env.DATABASE_URL
  if (!url) {
    console.log("\nDATABASE_URL is not set: the wire count needs PostgreSQL.")
    return
  }
  const name = `postwire_wire_${process.pid}_${Date.now()}`
  execFileSync("psql", [url, "-qc", `CREATE DATABASE ${name}`])
  const fresh = new URL(url)
  fresh.pathname = `/${name}`
  const wire = await relay(fresh)
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-bench-"))
  const rows = []
  try {
    // Background loops look for work rarely, so the counts are the requests'.
    const server = await serve(["--data-dir", dataDir], {
      DATABASE_URL: wire.url,
      POSTWIRE_PUBLISH_POLL_MS: "3600000"
    })
    const key = server.output.match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
    const profile = server.output.match(/prof_[0-9A-Z]+/)?.[0]
    const adminToken = server.output.match(/pwadm_[A-Za-z0-9_-]+/)?.[0]
    const workspace = server.output.match(/Workspace: (ws_[0-9A-Z]+)/)?.[1]
    if (!key || !profile || !adminToken || !workspace) throw new Error(`unexpected first-start output:\n${server.output}`)
    const accounts: Array<string> = []
    for (let i = 0; i < 2; i++) {
      const created = await fetch(`${server.baseUrl}/admin/v1/workspaces/${workspace}/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ profile_id: profile, platform: "photo", sandbox: true, daily_quota: 100_000_000 })
      })
      accounts.push(((await created.json()) as { id: string }).id)
    }
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const uploaded = await fetch(`${server.baseUrl}/v1/media`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ data: Buffer.from(aPng({ width: 8, height: 8 })).toString("base64") })
    })
    const media = ((await uploaded.json()) as { id: string }).id
    const body = JSON.stringify({ profile_id: profile, caption: "bench", media: [media], targets: accounts.map((account_id) => ({ account_id })) })
    try {
      rows.push(await perRequest("Postwire POST /v1/posts", wire, () => fetch(`${server.baseUrl}/v1/posts`, { method: "POST", headers: auth, body })))
      rows.push(
        await perRequest("Postwire POST /v1/posts with an Idempotency-Key", wire, () =>
          fetch(`${server.baseUrl}/v1/posts`, { method: "POST", headers: { ...auth, "idempotency-key": randomUUID() }, body })
        )
      )
      rows.push(await perRequest("Postwire GET /v1/posts", wire, () => fetch(`${server.baseUrl}/v1/posts?limit=25`, { headers: auth })))
    } finally {
      await server.stop()
    }
    const port = await freePort()
    const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(import.meta.dirname, "baseline-server.ts")], {
      env: { ...process.env, DATABASE_URL: wire.url, PORT: String(port), RATE_LIMIT_PER_KEY: "100000000", RATE_LIMIT_POSTS_CREATE: "100000000" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
    try {
      const base = `http://127.0.0.1:${port}`
      rows.push(await perRequest("baseline POST /v1/posts", wire, () => fetch(`${base}/v1/posts`, { method: "POST", headers: auth, body })))
      rows.push(
        await perRequest("baseline POST /v1/posts with an Idempotency-Key", wire, () =>
          fetch(`${base}/v1/posts`, { method: "POST", headers: { ...auth, "idempotency-key": randomUUID() }, body })
        )
      )
      rows.push(await perRequest("baseline GET /v1/posts", wire, () => fetch(`${base}/v1/posts?limit=25`, { headers: auth })))
    } finally {
      child.kill("SIGTERM")
    }
  } finally {
    await wire.close()
    rmSync(dataDir, { recursive: true, force: true })
    execFileSync("psql", [url, "-qc", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
  }
  console.log(`\n## Statements and round trips per request on PostgreSQL (${requests} requests each, counted on the wire)\n`)
  table(rows)
}
