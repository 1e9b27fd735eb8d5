/**
 * POST /v1/posts and GET /v1/posts over loopback: throughput and p99 of the real server
 * (embedded database, and PostgreSQL when DATABASE_URL is set), each beside a bare node:http
 * server answering the same JSON in the same run; the ratio is the figure. Then the latency of
 * the first page of GET /v1/posts with 1,000 and with 100,000 posts in the workspace.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { type PostAggregate, Store } from "@postwire/core"
import { PgliteClient, SqlStore } from "@postwire/store-sql"
import { aPng } from "../packages/core/test/fixtures/media.ts"
import { freePort, latency, load, serve, type Served, table } from "./support.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const large = Number(process.env.BENCH_LARGE_POSTS ?? 100_000)

interface Session {
  readonly server: Served
  readonly key: string
  readonly profile: string
  readonly account: string
  readonly media: string
}

const session = async (server: Served): Promise<Session> => {
  const key = server.output.match(/svc_test_[A-Za-z0-9_-]+/)?.[0]
  const profile = server.output.match(/prof_[0-9A-Z]+/)?.[0]
  const adminToken = server.output.match(/pwadm_[A-Za-z0-9_-]+/)?.[0]
  const workspace = server.output.match(/Workspace: (ws_[0-9A-Z]+)/)?.[1]
  if (!key || !profile || !adminToken || !workspace) throw new Error(`unexpected first-start output:\n${server.output}`)
  // An account whose daily quota does not stop a load test.
  const created = await fetch(`${server.baseUrl}/admin/v1/workspaces/${workspace}/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ profile_id: profile, platform: "photo", sandbox: true, daily_quota: 100_000_000 })
  })
  const account = ((await created.json()) as { id: string }).id
  const uploaded = await fetch(`${server.baseUrl}/v1/media`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ data: Buffer.from(aPng({ width: 8, height: 8 })).toString("base64") })
  })
  const media = ((await uploaded.json()) as { id: string }).id
  return { server, key, profile, account, media }
}

const createBody = (s: Session) =>
  JSON.stringify({ profile_id: s.profile, caption: "bench", media: [s.media], targets: [{ account_id: s.account }] })

const baseline = async (getBody: string, postBody: string) => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(import.meta.dirname, "baseline-server.ts")], {
    env: { ...process.env, PORT: String(port), BODY_GET: getBody, BODY_POST: postBody },
    stdio: ["ignore", "pipe", "inherit"]
  })
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
  return { url: `http://127.0.0.1:${port}`, stop: () => void child.kill("SIGTERM") }
}

const throughput = async (label: string, args: ReadonlyArray<string>, env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-bench-"))
  const server = await serve(["--data-dir", dataDir, ...args], env)
  try {
    const s = await session(server)
    const auth = { authorization: `Bearer ${s.key}`, "content-type": "application/json" }
    const createdReply = await fetch(`${server.baseUrl}/v1/posts`, { method: "POST", headers: auth, body: createBody(s) })
    const postJson = await createdReply.text()
    const post = await load({ url: `${server.baseUrl}/v1/posts`, method: "POST", headers: auth, body: createBody(s), seconds })
    const getJson = await (await fetch(`${server.baseUrl}/v1/posts?limit=25`, { headers: auth })).text()
    const get = await load({ url: `${server.baseUrl}/v1/posts?limit=25`, headers: auth, seconds })
    const bare = await baseline(getJson, postJson)
    const barePost = await load({ url: bare.url, method: "POST", body: createBody(s), seconds })
    const bareGet = await load({ url: bare.url, seconds })
    bare.stop()
    return [
      { run: `${label} POST /v1/posts`, rps: post.rps, p99_ms: post.p99, errors: post.errors + post.non2xx, baseline_rps: barePost.rps, baseline_p99_ms: barePost.p99, ratio: post.rps / barePost.rps },
      { run: `${label} GET /v1/posts`, rps: get.rps, p99_ms: get.p99, errors: get.errors + get.non2xx, baseline_rps: bareGet.rps, baseline_p99_ms: bareGet.p99, ratio: get.rps / bareGet.rps }
    ]
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Fills an embedded database with `count` posts of the first-start workspace, through the Store. */
const seed = (dataDir: string, workspaceId: string, profileId: string, accountId: string, mediaId: string, count: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    const t0 = Date.now() - count * 1000
    for (let i = 0; i < count; i++) {
      const id = `post_B${String(i).padStart(25, "0")}`
      const at = t0 + i * 1000
      const aggregate: PostAggregate = {
        post: {
          id, workspaceId, profileId, caption: `seeded ${i}`, media: [mediaId], scheduledAt: null, aiGenerated: false,
          approvalMode: "none", notify: null, status: "published", publishAt: at, createdAt: at, updatedAt: at, version: 1
        },
        targets: [{
          id: `tgt_B${String(i).padStart(25, "0")}`, workspaceId, postId: id, accountId, platform: "photo", status: "published",
          options: { photo: { type: "feed" } }, consent: null, permalink: `https://www.instagram.com/p/${i}/`, publishedAt: at,
          error: null, attempts: 1, platformState: null, dueAt: null, leaseOwner: null, leaseUntil: null, updatedAt: at
        }],
        approval: null
      }
      yield* store.insertPost(aggregate, [])
    }
  }).pipe(Effect.provide(SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({ dataDir: join(dataDir, "db") })))))

const firstPage = async (count: number) => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-bench-"))
  try {
    let server = await serve(["--data-dir", dataDir], { DATABASE_URL: "" })
    const s = await session(server)
    const workspaceId = await workspaceOf(s)
    await server.stop()
    const started = Date.now()
    await Effect.runPromise(seed(dataDir, workspaceId, s.profile, s.account, s.media, count))
    const seededIn = (Date.now() - started) / 1000
    server = await serve(["--data-dir", dataDir], { DATABASE_URL: "" })
    const headers = { authorization: `Bearer ${s.key}` }
    await latency(`${server.baseUrl}/v1/posts?limit=25`, headers, 20)
    const first = await latency(`${server.baseUrl}/v1/posts?limit=25`, headers, 200)
    const filtered = await latency(`${server.baseUrl}/v1/posts?limit=25&status=published&platform=photo`, headers, 200)
    await server.stop()
    return { posts: count, first_page_median_ms: first.median, first_page_p99_ms: first.p99, filtered_median_ms: filtered.median, filtered_p99_ms: filtered.p99, seeded_in_s: seededIn }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const workspaceOf = async (s: Session): Promise<string> => {
  const found = s.server.output.match(/Workspace: (ws_[0-9A-Z]+)/)?.[1]
  if (!found) throw new Error(`workspace id not printed:\n${s.server.output}`)
  return found
}

/** A new, empty PostgreSQL database beside the one `url` names, dropped afterwards. */
const freshDatabase = async (url: string) => {
  const name = `postwire_bench_${process.pid}_${Date.now()}`
  execFileSync("psql", [url, "-qc", `CREATE DATABASE ${name}`])
  const fresh = new URL(url)
  fresh.pathname = `/${name}`
  return {
    url: fresh.toString(),
    drop: () => execFileSync("psql", [url, "-qc", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
  }
}

/** Runs the posts API bench. */
export const run = async (): Promise<void> => {
  console.log(`\n## Posts API over loopback (${seconds}s per run, 10 connections)\n`)
  const rows = [...(await throughput("embedded", [], { DATABASE_URL: "" }))]
  if (process.env.DATABASE_URL) {
    const database = await freshDatabase(process.env.DATABASE_URL)
    try {
      rows.push(...(await throughput("postgres", [], { DATABASE_URL: database.url })))
    } finally {
      database.drop()
    }
  }
  table(rows)
  console.log(`\n## GET /v1/posts first page by workspace size (embedded)\n`)
  table([await firstPage(1_000), await firstPage(large)])
}
