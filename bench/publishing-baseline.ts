/**
 * The publisher's baseline: a hand-written worker that publishes due targets to the fake Threads
 * server with the same calls and the same kind of durable writes as Postwire's publisher, with
 * node:http (one keep-alive agent) and `pg` (a pool of 10) and nothing else. In its own process,
 * like a `postwire serve --role worker`; `bench/publishing.ts` runs it beside the real worker in
 * the same run, on the same machine, against the same fake.
 *
 * What it does for each target, as Postwire does (and no more):
 * - claims due targets in batches of up to its free slots (128 at once), marking them
 *   `publishing` under a lease and writing their `post.publishing` events, in one statement;
 * - reads the account's publishing limit once per account and 30 s (as the adapter reuses a far
 *   reading), creates the IMAGE container with a signed media address, saves the container id,
 *   reads the container's status, saves a checkpoint before the publish, publishes, reads the
 *   permalink, and marks the target published with its `post.published` event;
 * - each write is one autocommitted statement checking the lease (`lease_owner`): three per
 *   target after the claim. No batching, no retries, no token handling, no logging, no metrics.
 *
 * Run as a child: `DATABASE_URL` (with its `search_path`), `BASELINE_FAKE_URL` (the Graph base with
 * its version), `BASELINE_USER_ID`, `BASELINE_ACCESS_TOKEN`, `BASELINE_MEDIA_URL` (a base the image
 * addresses are signed under), `BASELINE_POLL_MS` (idle claim interval, default 50). It creates its
 * tables, prints `ready`, and publishes until it is stopped.
 */
import { createHmac, randomBytes } from "node:crypto"
import { Agent, request } from "node:http"
import { pathToFileURL } from "node:url"

/** The baseline's tables, in the schema its `search_path` names. */
export const schemaSql = `
CREATE TABLE raw_targets (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  caption text NOT NULL,
  media_id text NOT NULL,
  status text NOT NULL,
  due_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  state jsonb,
  platform_post_id text,
  permalink text,
  published_at bigint
);
CREATE INDEX raw_targets_due ON raw_targets (due_at) WHERE status = 'scheduled';
CREATE TABLE raw_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  target_id text NOT NULL,
  data jsonb NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX raw_events_created ON raw_events (created_at);
`

/** `count` scheduled targets due at `dueAt` (epoch ms) over `accounts` accounts, ids from `first`. */
export const seedSql = (first: number, count: number, dueAt: number, accounts: number) => `
INSERT INTO raw_targets (id, account_id, caption, media_id, status, due_at)
SELECT 'tgt_' || n, 'acc_' || (n % ${accounts}), 'Fresh loaves, raw batch ' || n, 'med_' || n, 'scheduled', ${dueAt}
FROM generate_series(${first}, ${first + count - 1}) AS n
`

const claimSql = `
WITH claimed AS (
  UPDATE raw_targets t SET status = 'publishing', lease_owner = $1, lease_until = $2
  WHERE t.id IN (
    SELECT id FROM raw_targets WHERE status = 'scheduled' AND due_at <= $3
    ORDER BY due_at LIMIT $4 FOR UPDATE SKIP LOCKED
  )
  RETURNING t.id, t.account_id, t.caption, t.media_id
), events AS (
  INSERT INTO raw_events (id, type, target_id, data, created_at)
  SELECT 'evt_' || gen_random_uuid(), 'post.publishing', id, jsonb_build_object('target_id', id, 'platform', 'textpost'), $3
  FROM claimed
)
SELECT id, account_id, caption, media_id FROM claimed`

const saveStateSql = "UPDATE raw_targets SET state = $3 WHERE id = $1 AND lease_owner = $2"

const publishedSql = `
WITH done AS (
  UPDATE raw_targets SET status = 'published', platform_post_id = $3, permalink = $4, published_at = $5,
    state = $6, lease_owner = NULL, lease_until = NULL
  WHERE id = $1 AND lease_owner = $2
  RETURNING id
)
INSERT INTO raw_events (id, type, target_id, data, created_at)
SELECT 'evt_' || gen_random_uuid(), 'post.published', id,
  jsonb_build_object('target_id', id, 'platform', 'textpost', 'permalink', $4::text, 'published_at', $5::bigint), $5
FROM done`

const failedSql = "UPDATE raw_targets SET status = 'failed', state = $3, lease_owner = NULL WHERE id = $1 AND lease_owner = $2"

interface Claimed {
  readonly id: string
  readonly account_id: string
  readonly caption: string
  readonly media_id: string
}

const main = async () => {
  const env = (name: string) => {
    const value = process.env[name]
    if (value === undefined || value === "") throw new Error(`${name} is not set`)
    return value
  }
  const fakeUrl = new URL(env("BASELINE_FAKE_URL"))
  const userId = env("BASELINE_USER_ID")
  const token = env("BASELINE_ACCESS_TOKEN")
  const mediaBase = env("BASELINE_MEDIA_URL")
  const pollMs = Number(process.env.BASELINE_POLL_MS ?? 50)
  const concurrency = 128
  const leaseMs = 60_000
  const owner = `raw-${randomBytes(4).toString("hex")}`
  const signingKey = randomBytes(32)

  const { default: pg } = await import("pg")
  pg.types.setTypeParser(20, Number)
  const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 10 })
  await pool.query(schemaSql)

  const agent = new Agent({ keepAlive: true })
  const call = (method: "GET" | "POST", path: string, params: Record<string, string>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const query = new URLSearchParams({ ...params, access_token: token }).toString()
      const body = method === "POST" ? query : undefined
      const req = request(
        {
          host: fakeUrl.hostname,
          port: fakeUrl.port,
          method,
          path: `${fakeUrl.pathname}/${path}${method === "GET" ? `?${query}` : ""}`,
          agent,
          headers:
            body === undefined
              ? { accept: "application/json" }
              : { accept: "application/json", "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }
        },
        (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8")
            if (res.statusCode !== 200) return reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))
            resolve(JSON.parse(text) as Record<string, unknown>)
          })
          res.on("error", reject)
        }
      )
      req.on("error", reject)
      req.end(body)
    })

  /** When the publishing limit of the platform user was last read (a far reading stands for 30 s, as in the adapter). */
  const limitReadAt = new Map<string, number>()
  const signed = (mediaId: string) => {
    const expires = Date.now() + 3_600_000
    const signature = createHmac("sha256", signingKey).update(`${mediaId}.${expires}`).digest("base64url")
    return `${mediaBase}/media/${mediaId}?expires=${expires}&signature=${signature}`
  }

  const publish = async (target: Claimed) => {
    const now = Date.now()
    if ((limitReadAt.get(userId) ?? -Infinity) < now - 30_000) {
      const limit = await call("GET", `${userId}/threads_publishing_limit`, { fields: "quota_usage,config" })
      if (!Array.isArray(limit.data)) throw new Error("no publishing limit")
      limitReadAt.set(userId, now)
    }
    const container = await call("POST", `${userId}/threads`, {
      media_type: "IMAGE",
      image_url: signed(target.media_id),
      text: target.caption
    })
    const containerId = String(container.id)
    let state: Record<string, unknown> = { children: [], container_id: containerId, started_at: now }
    const held = async (sql: string, values: ReadonlyArray<unknown>) => {
      const result = await pool.query(sql, [target.id, owner, ...values])
      if (result.rowCount !== 1) throw new Error(`lease lost: ${target.id}`)
    }
    await held(saveStateSql, [state])
    const status = await call("GET", containerId, { fields: "status,error_message" })
    if (status.status !== "FINISHED") throw new Error(`container ${containerId}: ${String(status.status)}`)
    state = { ...state, publish_sent_at: Date.now() }
    await held(saveStateSql, [state])
    const media = await call("POST", `${userId}/threads_publish`, { creation_id: containerId })
    const mediaId = String(media.id)
    const link = await call("GET", mediaId, { fields: "permalink" })
    await held(publishedSql, [mediaId, String(link.permalink), Date.now(), { ...state, media_id: mediaId }])
  }

  let running = 0
  let wake: (() => void) | undefined
  const slotFreed = () => {
    running -= 1
    wake?.()
  }
  let stopping = false
  process.on("SIGTERM", () => {
    stopping = true
    wake?.()
  })
  console.log("ready")
  while (!stopping) {
    const free = concurrency - running
    let claimed: Array<Claimed> = []
    if (free > 0) {
      const at = Date.now()
      claimed = (await pool.query<Claimed>(claimSql, [owner, at + leaseMs, at, free])).rows
      for (const target of claimed) {
        running += 1
        publish(target)
          .catch(async (error: unknown) => {
            console.error(String(error))
            await pool.query(failedSql, [target.id, owner, { error: String(error) }]).catch(() => undefined)
          })
          .finally(slotFreed)
      }
    }
    // Caught up or full: look again after the poll interval, or as soon as a slot frees.
    if (claimed.length < free || free === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
    }
  }
  await pool.end()
  agent.destroy()
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
