/**
 * Shared pieces of the benchmarks: starting servers as child processes and measuring them.
 */
import { randomBytes } from "node:crypto"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import autocannon from "autocannon"

/** The `postwire` command the benches start; `BENCH_POSTWIRE_BIN` names another build (to compare two). */
export const bin = process.env.BENCH_POSTWIRE_BIN ?? join(import.meta.dirname, "../packages/server/bin/postwire.js")

/** A free loopback port. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** A running `postwire serve` and what it printed. */
export interface Served {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly output: string
  readonly stop: () => Promise<void>
}

const benchSecret = randomBytes(32).toString("base64url")

/**
 * Starts `postwire serve` with high rate limits and waits until it listens; `nodeArgs` go to
 * node itself (e.g. `--cpu-prof`).
 */
export const serve = async (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  nodeArgs: ReadonlyArray<string> = []
): Promise<Served> => {
  const port = await freePort()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, bin, "serve", "--port", String(port), ...args], {
      env: {
        ...process.env,
        POSTWIRE_RATE_LIMIT_PER_KEY: "100000000",
        POSTWIRE_RATE_LIMIT_POSTS_CREATE: "100000000",
        // One master secret for every process of a run (required on PostgreSQL).
        POSTWIRE_SECRET: benchSecret,
        ...env
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    let ready = false
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString()
      if (!ready && output.includes("OpenAPI:")) {
        ready = true
        setTimeout(
          () =>
            resolve({
              child,
              baseUrl: `http://127.0.0.1:${port}`,
              output,
              stop: () =>
                new Promise<void>((done) => {
                  child.removeAllListeners("exit")
                  child.on("exit", () => done())
                  child.kill("SIGTERM")
                })
            }),
          300
        )
      }
    })
    child.stderr.on("data", (c: Buffer) => (output += c.toString()))
    child.on("exit", (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
}

/** Throughput and tail latency of one load run. */
export interface Load {
  readonly rps: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
}

/** Runs autocannon against a URL. */
export const load = async (options: {
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly seconds?: number
  readonly connections?: number
}): Promise<Load> => {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    duration: options.seconds ?? 5,
    connections: options.connections ?? 10
  })
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx }
}

/** Sequential request latencies in milliseconds: median and p99. */
export const latency = async (url: string, headers: Record<string, string>, count: number) => {
  const samples: Array<number> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    const response = await fetch(url, { headers })
    await response.arrayBuffer()
    if (!response.ok) throw new Error(`GET ${url}: ${response.status}`)
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  return { median: samples[Math.floor(count / 2)]!, p99: samples[Math.min(count - 1, Math.floor(count * 0.99))]! }
}

/** Prints rows as an aligned table. */
export const table = (rows: ReadonlyArray<Record<string, string | number>>) => {
  const columns = Object.keys(rows[0] ?? {})
  const cell = (v: string | number) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v)
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]!).length)))
  const line = (values: ReadonlyArray<string>) => values.map((v, i) => v.padEnd(widths[i]!)).join("  ")
  console.log(line(columns))
  for (const r of rows) console.log(line(columns.map((c) => cell(r[c]!))))
}
