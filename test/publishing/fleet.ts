/**
 * A fleet of real `postwire serve` processes on one PostgreSQL schema, publishing to the fake
 * Threads server (test/platforms/fakes) through live accounts: one `--role api` instance that
 * takes the posts and serves media, and any number of `--role worker` instances that a test
 * can start, stop, and kill -9.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres } from "@postwire/store-sql"
import { aPng } from "../support/Media.ts"
import type { ContainerFake } from "../platforms/meta/ContainerFake.ts"
import * as ThreadsFake from "../platforms/threads/ThreadsFake.ts"
import { eventually } from "../support/Eventually.ts"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

/** A loopback port free right now. */
export const freePort = (): Promise<number> =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** Process groups still running; killed if the test process exits before stopping them. */
const running = new Set<number>()
process.on("exit", () => {
  for (const group of running) {
    try {
      process.kill(-group, "SIGKILL")
    } catch {
      // already gone
    }
  }
})

/** One `postwire serve` process. */
export interface Instance {
  readonly name: string
  /** The process id (it leads its process group). */
  readonly pid: number
  readonly baseUrl: string
  readonly output: () => string
  /** Whether the process is still running. */
  readonly alive: () => boolean
  /** SIGTERM, and wait for it to exit. */
  readonly stop: () => Promise<void>
  /** SIGKILL to the process and its children: no finalizer runs, no lease is given back. */
  readonly kill9: () => Promise<void>
}

/** A post the fleet created, with its caption (unique, so the fake's items can be told apart). */
export interface CreatedPost {
  readonly id: string
  readonly caption: string
}

/** The fleet and its fake platform. */
export interface Fleet {
  /** The database URL every instance uses (its `search_path` is the fleet's own schema). */
  readonly databaseUrl: string
  /** The fleet's schema, also the `application_name` of every connection of its instances. */
  readonly schema: string
  readonly api: Instance
  readonly fake: ContainerFake
  readonly liveKey: string
  /** The workspace's profile, its accounts (Threads, live, on the fake) and an uploaded image. */
  readonly profileId: string
  readonly accountIds: ReadonlyArray<string>
  readonly imageId: string
  readonly workers: Array<Instance>
  /**
   * Starts one more worker and waits until it answers /health; `nodeArgs` go to node itself
   * (e.g. `--cpu-prof`).
   */
  readonly startWorker: (env?: Readonly<Record<string, string>>, nodeArgs?: ReadonlyArray<string>) => Promise<Instance>
  /** Creates `count` posts, one target each, spread over the fleet's accounts. */
  readonly createPosts: (count: number, fields?: Readonly<Record<string, unknown>>) => Promise<Array<CreatedPost>>
  /** Waits until the fake has published `count` items; fails after `timeoutMs`. */
  readonly waitForPublished: (count: number, timeoutMs: number) => Promise<void>
  /** Every post of the fleet's workspace, read from the API. */
  readonly listPosts: () => Promise<Array<any>>
  /**
   * Every post, read once none is `queued` or `publishing` any more (or `timeoutMs` passed): the
   * platform counts a publish before the worker has stored its result.
   */
  readonly listSettledPosts: (timeoutMs: number) => Promise<Array<any>>
  /** `POST /v1/posts/{id}/retry`: queues the post's retryable failed targets again. */
  readonly retryPost: (id: string) => Promise<{ status: number; body: any }>
  readonly stop: () => Promise<void>
}

/** Starts `postwire serve` and resolves once `ready` says it is. */
export const serve = async (
  name: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  port: number,
  nodeArgs: ReadonlyArray<string> = []
): Promise<Instance> => {
  // Detached: the process leads its own group, so kill -9 reaches the server under the bin too.
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, bin, "serve", "--port", String(port), "--host", "127.0.0.1", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
  })
  let out = ""
  let exited = false
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()))
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()))
  running.add(child.pid!)
  const exit = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  void exit.then(() => {
    exited = true
    running.delete(child.pid!)
  })
  const baseUrl = `http://127.0.0.1:${port}`
  await eventually(
    async () => {
      if (exited) return "exited"
      // The port is bound before the server is ready: ask only once it says it listens.
      const healthy =
        out.includes("is listening") &&
        (await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.ok,
          () => false
        ))
      return healthy ? "healthy" : "starting"
    },
    (state) => state !== "starting",
    `${name} to start`,
    { intervalMs: 100 }
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${out}`)
  })
  if (exited) throw new Error(`${name} exited while starting:\n${out}`)
  const signal = async (sig: NodeJS.Signals) => {
    if (exited) return
    try {
      process.kill(-child.pid!, sig)
    } catch {
      // already gone
    }
    await exit
  }
  return {
    name,
    pid: child.pid!,
    baseUrl,
    output: () => out,
    alive: () => !exited,
    stop: () => signal("SIGTERM"),
    kill9: () => signal("SIGKILL")
  }
}

/** Runs one SQL statement on the database (outside any schema). */
const onDatabase = (url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(statement)
    }).pipe(Effect.provide(layerPostgres(url, { maxConnections: 1 })))
  )

/** How a fleet starts. */
export interface FleetOptions {
  /** Live Threads accounts of the workspace, on the fake. */
  readonly accounts: number
  /** Environment of every worker, over the fleet's own. */
  readonly workerEnv?: Readonly<Record<string, string>>
  /**
   * The URL the instances reach PostgreSQL by, from `DATABASE_URL` (e.g. through a
   * `FaultProxy`); the fleet's schema is made and dropped on `DATABASE_URL` itself.
   */
  readonly through?: (databaseUrl: string) => string
  /** Workers started with the fleet (default none: a test starts its own). */
  readonly workers?: number
}

/**
 * Starts the fake Threads server, a fresh schema, an API instance with a live workspace
 * (`accounts` Threads accounts whose base URL is the fake), and `workers` workers (none by default).
 */
export const startFleet = async (options: FleetOptions): Promise<Fleet> => {
  const databaseUrl = process.env.DATABASE_URL
  if (!databaseUrl) throw new Error("DATABASE_URL is not set")
  const schema = `pw_fleet_${randomBytes(5).toString("hex")}`
  await onDatabase(databaseUrl, `CREATE SCHEMA ${schema}`)
  const reach = options.through?.(databaseUrl) ?? databaseUrl
  // The application name lets a bench find the fleet's PostgreSQL backends (pg_stat_activity) among others'.
  const url = `${reach}${reach.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`

  const fakeScope = Effect.runSync(Scope.make())
  const fake = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(fakeScope)))
  // Each step's container is ready at its first status check.
  fake.pollsBeforeFinished = 0
  // The fake keeps one quota for all its callers; the fleet publishes far more than a real account may.
  fake.quotaUsedBefore = -1_000_000

  const dataDir = mkdtempSync(join(tmpdir(), "postwire-fleet-"))
  const adminToken = `pwadm_${randomBytes(16).toString("hex")}`
  const apiPort = await freePort()
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const common = {
    DATABASE_URL: url,
    POSTWIRE_ADMIN_TOKEN: adminToken,
    // On PostgreSQL every instance is given the same master secret (docs/operations.md).
    POSTWIRE_SECRET: randomBytes(32).toString("base64url"),
    POSTWIRE_PUBLIC_URL: apiUrl,
    POSTWIRE_DATA_DIR: dataDir
  }
  const api = await serve(
    "api",
    ["--role", "api"],
    { ...common, POSTWIRE_RATE_LIMIT_PER_KEY: "100000000", POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000000" },
    apiPort
  )

  const admin = async (path: string, body: unknown): Promise<any> => {
    const reply = await fetch(`${apiUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    const json = await reply.json()
    if (!reply.ok) throw new Error(`admin ${path}: ${reply.status} ${JSON.stringify(json)}`)
    return json
  }
  const workspace = await admin("/workspaces", { name: "fleet" })
  const { key: liveKey } = await admin(`/workspaces/${workspace.id}/keys`, { kind: "live", scopes: ["posts:read", "posts:write"] })
  const profile = await admin(`/workspaces/${workspace.id}/profiles`, { name: "Fleet" })
  const accounts: Array<string> = []
  for (let i = 0; i < options.accounts; i++) {
    const account = await admin(`/workspaces/${workspace.id}/accounts`, {
      profile_id: profile.id,
      platform: "textpost",
      sandbox: false,
      handle: `maya.bakes.${i}`,
      daily_quota: 1_000_000,
      credentials: { access_token: fake.accessToken },
      external_id: ThreadsFake.threadsUserId
    })
    accounts.push(account.id)
  }
  const api$ = (method: string, path: string, body?: unknown) =>
    fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${liveKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
  const image = await api$("POST", "/v1/media", { data: Buffer.from(aPng({ width: 8, height: 8 })).toString("base64") })
  if (image.status !== 201) throw new Error(`upload: ${JSON.stringify(image.body)}`)

  const workers: Array<Instance> = []
  let started = 0
  const startWorker = async (env: Readonly<Record<string, string>> = {}, nodeArgs: ReadonlyArray<string> = []) => {
    const worker = await serve(
      `worker-${++started}`,
      ["--role", "worker"],
      {
        ...common,
        POSTWIRE_THREADS_BASE_URL: fake.url,
        POSTWIRE_THREADS_REFRESH_URL: "none",
        POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
        POSTWIRE_PLATFORM_RETRY_DELAY_MS: "50",
        POSTWIRE_PUBLISH_POLL_MS: "50",
        ...options.workerEnv,
        ...env
      },
      await freePort(),
      nodeArgs
    )
    workers.push(worker)
    return worker
  }

  const runId = randomBytes(3).toString("hex")
  let made = 0
  const createPosts = async (count: number, fields: Readonly<Record<string, unknown>> = {}) => {
    const created: Array<CreatedPost> = []
    let next = 0
    const one = async () => {
      for (;;) {
        const i = next++
        if (i >= count) return
        const caption = `Fresh loaves, batch ${runId}-${made + i}`
        const reply = await api$("POST", "/v1/posts", {
          profile_id: profile.id,
          caption,
          media: [image.body.id],
          targets: [{ account_id: accounts[i % accounts.length] }],
          approval: { mode: "none" },
          ...fields
        })
        if (reply.status !== 201) throw new Error(`create: ${reply.status} ${JSON.stringify(reply.body)}`)
        created.push({ id: reply.body.id, caption })
      }
    }
    await Promise.all(Array.from({ length: 16 }, one))
    made += count
    return created
  }

  const waitForPublished = async (count: number, timeoutMs: number) => {
    await eventually(
      () => ({ published: fake.media.length, workers: workers.map((w) => `--- ${w.name}\n${w.output().slice(-3000)}`).join("\n") }),
      (state) => state.published >= count,
      `${count} published`,
      { intervalMs: 100, withinMs: timeoutMs }
    )
  }

  const listPosts = async () => {
    const all: Array<any> = []
    let cursor: string | null = null
    do {
      const page: { status: number; body: any } = await api$(
        "GET",
        `/v1/posts?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      )
      all.push(...page.body.data)
      cursor = page.body.cursor.next
    } while (cursor !== null)
    return all
  }

  const listSettledPosts = (timeoutMs: number) =>
    eventually(listPosts, (posts) => posts.every((p) => p.status !== "queued" && p.status !== "publishing"), "every post settled", {
      intervalMs: 200,
      withinMs: timeoutMs
    }).catch(() => listPosts())

  await Promise.all(Array.from({ length: options.workers ?? 0 }, () => startWorker()))

  return {
    databaseUrl: url,
    schema,
    api,
    fake,
    liveKey,
    profileId: profile.id,
    accountIds: accounts,
    imageId: image.body.id,
    workers,
    startWorker,
    createPosts,
    waitForPublished,
    listPosts,
    listSettledPosts,
    retryPost: (id) => api$("POST", `/v1/posts/${id}/retry`),
    stop: async () => {
      await Promise.all([api, ...workers].map((instance) => instance.stop()))
      await Effect.runPromise(Scope.close(fakeScope, Exit.void))
      await onDatabase(databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/** Each caption the fake published, with how many times. */
export const publishedCaptions = (fake: ContainerFake): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const media of fake.media) counts.set(media.caption, (counts.get(media.caption) ?? 0) + 1)
  return counts
}
