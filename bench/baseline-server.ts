/**
 * The baseline: a hand-written node:http server doing the work of `POST /v1/posts` and
 * `GET /v1/posts` on the same schema and data as Postwire, with nothing but the driver: the
 * floor a request cannot go below on this machine. In its own process, like the real server.
 *
 * - POST: the API key by its hash, the key's and the route's rate-limit counts in one upsert
 *   (refused with 429 over `RATE_LIMIT_PER_KEY` / `RATE_LIMIT_POSTS_CREATE` a minute), with an
 *   `Idempotency-Key` its claim (one statement), then in one transaction the profile, the accounts
 *   (locked, as the quota check needs), the media, the quota count over the window, and the post,
 *   its targets, its approval link and its outbox event, and with a key the stored response
 *   (sealed with AES-256-GCM, as Postwire stores it). Answers the post as JSON.
 * - GET: the API key, a rate-limit count (refused over `RATE_LIMIT_PER_KEY`), one keyset page of
 *   posts, their targets and approvals (one statement each), and a signed cursor for the next page.
 *
 * On PostgreSQL (`DATABASE_URL`) through `pg` with a pool of 10 connections and named prepared
 * statements; otherwise on the embedded database's directory (`DATA_DIR`) through PGlite, whose
 * one connection takes one transaction at a time.
 */
import { createCipheriv, createHash, createHmac, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** One statement: its text and parameters, and a name when it may be prepared. */
interface Query {
  readonly name: string
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

type Row = Record<string, unknown>

/** The driver, as little of it as the handlers need. */
interface Db {
  readonly query: (q: Query) => Promise<ReadonlyArray<Row>>
  readonly transaction: <A>(work: (query: (q: Query) => Promise<ReadonlyArray<Row>>) => Promise<A>) => Promise<A>
}

const postgres = async (url: string): Promise<Db> => {
  const { default: pg } = await import("pg")
  // int8 as a number, as the stores read it.
  pg.types.setTypeParser(20, Number)
  const pool = new pg.Pool({ connectionString: url, max: 10, application_name: "postwire-bench-baseline" })
  return {
    query: async (q) => (await pool.query({ name: q.name, text: q.text, values: [...q.values] })).rows,
    transaction: async (work) => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const result = await work(async (q) => (await client.query({ name: q.name, text: q.text, values: [...q.values] })).rows)
        await client.query("COMMIT")
        return result
      } catch (error) {
        await client.query("ROLLBACK")
        throw error
      } finally {
        client.release()
      }
    }
  }
}

const embedded = async (dataDir: string): Promise<Db> => {
  const { PGlite } = await import("@electric-sql/pglite")
  const db = await PGlite.create(dataDir)
  return {
    query: async (q) => (await db.query<Row>(q.text, [...q.values])).rows,
    transaction: (work) => db.transaction((tx) => work(async (q) => (await tx.query<Row>(q.text, [...q.values])).rows))
  }
}

const db = process.env.DATABASE_URL ? await postgres(process.env.DATABASE_URL) : await embedded(process.env.DATA_DIR ?? "")
const secret = process.env.CURSOR_SECRET ?? randomBytes(32).toString("hex")
const sealKey = randomBytes(32)
const day = 24 * 60 * 60 * 1000
const perKeyLimit = Number(process.env.RATE_LIMIT_PER_KEY ?? 120)
const createLimit = Number(process.env.RATE_LIMIT_POSTS_CREATE ?? 30)

/** A stored response, sealed as Postwire seals it (AES-256-GCM, the key's identity as associated data). */
const seal = (body: string, context: string) => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", sealKey, iv)
  cipher.setAAD(Buffer.from(context))
  const sealed = Buffer.concat([cipher.update(body), cipher.final()])
  return `v1.${iv.toString("base64url")}.${sealed.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`
}

const id = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex").toUpperCase().slice(0, 26)}`
const sha256 = (value: string) => createHash("sha256").update(value).digest("hex")

const reply = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

const refuse = (response: ServerResponse, status: number, code: string) => reply(response, status, { error: { code } })

/**
 * The caller's key, by the hash of the bearer token, and its rate limits counted (the key's
 * bucket, and for a create the route's, in one upsert): `"limited"` when one is over its limit.
 */
const authenticate = async (request: IncomingMessage, scope: string) => {
  const token = request.headers.authorization?.replace(/^Bearer /, "") ?? ""
  const [key] = await db.query({
    name: "auth",
    text: `SELECT k.workspace_id, k.id, k.scopes, k.revoked_at FROM api_key_hashes h
      JOIN api_keys k ON k.workspace_id = h.workspace_id AND k.id = h.key_id WHERE h.key_hash = $1`,
    values: [sha256(token)]
  })
  if (key === undefined || key.revoked_at !== null || !(key.scopes as Array<string>).includes(scope)) return undefined
  const now = Date.now()
  const windowStart = now - (now % 60_000)
  const creating = scope === "posts:write"
  const counts = await db.query({
    name: creating ? "rate2" : "rate1",
    text: `INSERT INTO rate_limits (bucket, window_start, count, expires_at) VALUES ${creating ? "($1, $3, 1, $4), ($2, $3, 1, $4)" : "($1, $2, 1, $3)"}
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1 RETURNING bucket, count`,
    values: creating
      ? [`baseline:${key.id}`, `baseline:create:${key.id}`, windowStart, windowStart + 120_000]
      : [`baseline:${key.id}`, windowStart, windowStart + 120_000]
  })
  const over = counts.some((row) =>
    Number(row.count) > ((row.bucket as string).startsWith("baseline:create:") ? createLimit : perKeyLimit)
  )
  if (over) return "limited" as const
  return { workspaceId: key.workspace_id as string, keyId: key.id as string }
}

interface CreateBody {
  readonly profile_id: string
  readonly caption: string
  readonly media: ReadonlyArray<string>
  readonly targets: ReadonlyArray<{ readonly account_id: string }>
}

const create = async (request: IncomingMessage, response: ServerResponse, raw: string) => {
  const caller = await authenticate(request, "posts:write")
  if (caller === undefined) return refuse(response, 401, "unauthorized")
  if (caller === "limited") return refuse(response, 429, "rate_limited")
  const body = JSON.parse(raw) as CreateBody
  if (typeof body.profile_id !== "string" || !Array.isArray(body.targets) || body.targets.length === 0) {
    return refuse(response, 400, "invalid_request")
  }
  const { keyId, workspaceId } = caller
  // An Idempotency-Key: claimed in one statement; a key seen before is refused here (Postwire
  // replays or refuses it: neither happens in the bench, whose keys are all new).
  const idempotencyKey = request.headers["idempotency-key"]
  const claimedAt = Date.now()
  if (typeof idempotencyKey === "string") {
    const claimed = await db.query({
      name: "claim",
      text: `INSERT INTO idempotency_keys (workspace_id, key_id, key, request_hash, state, status, body, created_at, locked_until)
        VALUES ($1, $2, $3, $4, 'in_progress', NULL, NULL, $5, $6) ON CONFLICT (workspace_id, key_id, key) DO NOTHING RETURNING 1`,
      values: [workspaceId, keyId, idempotencyKey, sha256(raw), claimedAt, claimedAt + 60_000]
    })
    if (claimed.length === 0) return refuse(response, 409, "idempotency_conflict")
  }
  const accountIds = [...new Set(body.targets.map((t) => t.account_id))].sort()
  const now = Date.now()
  const postId = id("post")
  const approvalId = id("apr")
  const token = randomBytes(32).toString("base64url")
  const targets = body.targets.map((t, position) => ({ id: id("tgt"), accountId: t.account_id, position }))
  const answer = () => created(body, postId, now, targets, approvalId, token)
  const outcome = await db.transaction(async (query) => {
    const [profile] = await query({
      name: "profile",
      text: "SELECT id FROM profiles WHERE workspace_id = $1 AND id = $2",
      values: [workspaceId, body.profile_id]
    })
    if (profile === undefined) return "profile_not_found"
    const accounts = await query({
      name: "accounts",
      text: `SELECT id, platform, status, profile_id, daily_quota FROM accounts
        WHERE workspace_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE`,
      values: [workspaceId, accountIds]
    })
    if (accounts.length !== accountIds.length) return "account_not_found"
    if (accounts.some((a) => a.status !== "connected" || a.profile_id !== body.profile_id)) return "account_unusable"
    const media = await query({
      name: "media",
      text: "SELECT id, kind FROM media WHERE workspace_id = $1 AND id = ANY($2)",
      values: [workspaceId, body.media]
    })
    if (media.length !== new Set(body.media).size) return "media_not_found"
    const used = await query({
      name: "quota",
      text: `SELECT account_id, count(*) AS n FROM targets
        WHERE workspace_id = $1 AND account_id = ANY($2) AND status NOT IN ('cancelled', 'rejected', 'failed')
          AND quota_at >= $3 AND quota_at < $4 GROUP BY account_id`,
      values: [workspaceId, accountIds, now - day + 1, now + 1]
    })
    const usedBy = new Map(used.map((row) => [row.account_id as string, Number(row.n)]))
    if (accounts.some((a) => (usedBy.get(a.id as string) ?? 0) + 1 > ((a.daily_quota as number | null) ?? 25))) {
      return "quota_exceeded"
    }
    await query({
      name: "post",
      text: `INSERT INTO posts (workspace_id, id, profile_id, caption, media, scheduled_at, ai_generated, approval_mode,
          notify, status, publish_at, created_at, updated_at, version)
        VALUES ($1, $2, $3, $4, $5, NULL, false, 'link', NULL, 'awaiting_approval', $6, $6, $6, 1)`,
      values: [workspaceId, postId, body.profile_id, body.caption, JSON.stringify(body.media), now]
    })
    const platformOf = new Map(accounts.map((a) => [a.id as string, a.platform as string]))
    await query({
      name: `targets${targets.length}`,
      text: `INSERT INTO targets (workspace_id, id, post_id, position, account_id, platform, status, options, attempts,
          updated_at, quota_at) VALUES ${targets
            .map((_, i) => `($1, $${2 + i * 4}, $${3 + i * 4}, ${i}, $${4 + i * 4}, $${5 + i * 4}, 'awaiting_approval', '{}', 0, $${2 + targets.length * 4}, $${2 + targets.length * 4})`)
            .join(", ")}`,
      values: [workspaceId, ...targets.flatMap((t) => [t.id, postId, t.accountId, platformOf.get(t.accountId)]), now]
    })
    await query({
      name: "approval",
      text: `INSERT INTO approvals (workspace_id, id, post_id, token_hash, status, expires_at, created_at)
        VALUES ($1, $2, $3, $4, 'pending', $5, $6)`,
      values: [workspaceId, approvalId, postId, sha256(token), now + 7 * day, now]
    })
    await query({
      name: "approvalToken",
      text: "INSERT INTO approval_tokens (token_hash, workspace_id, post_id, approval_id) VALUES ($1, $2, $3, $4)",
      values: [sha256(token), workspaceId, postId, approvalId]
    })
    await query({
      name: "event",
      text: `INSERT INTO outbox_events (workspace_id, id, type, created_at, livemode, data)
        VALUES ($1, $2, 'post.awaiting_approval', $3, false, $4)`,
      values: [workspaceId, id("evt"), now, JSON.stringify({ post_id: postId, approval_id: approvalId })]
    })
    if (typeof idempotencyKey === "string") {
      await query({
        name: "complete",
        text: `UPDATE idempotency_keys SET state = 'completed', status = 201, body = $4
          WHERE workspace_id = $1 AND key_id = $2 AND key = $3`,
        values: [workspaceId, keyId, idempotencyKey, seal(JSON.stringify(answer()), `${workspaceId}/${keyId}/${idempotencyKey}`)]
      })
    }
    return "created"
  })
  if (outcome !== "created") {
    if (typeof idempotencyKey === "string") {
      await db.query({
        name: "release",
        text: "DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key_id = $2 AND key = $3",
        values: [workspaceId, keyId, idempotencyKey]
      })
    }
    return refuse(response, outcome === "quota_exceeded" ? 422 : 404, outcome)
  }
  reply(response, 201, answer())
}

/** The created post as JSON. */
const created = (
  body: CreateBody,
  postId: string,
  now: number,
  targets: ReadonlyArray<{ readonly id: string; readonly accountId: string }>,
  approvalId: string,
  token: string
) => {
  const at = new Date(now).toISOString()
  return {
    id: postId,
    profile_id: body.profile_id,
    caption: body.caption,
    media: body.media,
    status: "awaiting_approval",
    scheduled_at: null,
    created_at: at,
    updated_at: at,
    targets: targets.map((t) => ({ id: t.id, account_id: t.accountId, status: "awaiting_approval", permalink: null })),
    approval: { id: approvalId, url: `http://127.0.0.1/approve/${token}`, expires_at: new Date(now + 7 * day).toISOString() },
    warnings: []
  }
}

const sign = (body: string) => createHmac("sha256", secret).update(body).digest().subarray(0, 16).toString("base64url")

const list = async (request: IncomingMessage, response: ServerResponse) => {
  const caller = await authenticate(request, "posts:read")
  if (caller === undefined) return refuse(response, 401, "unauthorized")
  if (caller === "limited") return refuse(response, 429, "rate_limited")
  const url = new URL(request.url ?? "/", "http://localhost")
  const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 25))
  const cursor = url.searchParams.get("cursor")
  let after: { s: number; id: string } | undefined
  if (cursor !== null) {
    const [body, signature] = cursor.split(".")
    if (body === undefined || signature !== sign(body)) return refuse(response, 400, "invalid_cursor")
    after = JSON.parse(Buffer.from(body, "base64url").toString()) as { s: number; id: string }
  }
  const posts = after === undefined
    ? await db.query({
      name: "page",
      text: "SELECT * FROM posts WHERE workspace_id = $1 ORDER BY publish_at DESC, id DESC LIMIT $2",
      values: [caller.workspaceId, limit + 1]
    })
    : await db.query({
      name: "pageAfter",
      text: `SELECT * FROM posts WHERE workspace_id = $1 AND (publish_at, id) < ($2, $3)
        ORDER BY publish_at DESC, id DESC LIMIT $4`,
      values: [caller.workspaceId, after.s, after.id, limit + 1]
    })
  const page = posts.slice(0, limit)
  const ids = page.map((p) => p.id)
  const [targets, approvals] = await Promise.all([
    db.query({
      name: "pageTargets",
      text: "SELECT * FROM targets WHERE workspace_id = $1 AND post_id = ANY($2) ORDER BY post_id, position",
      values: [caller.workspaceId, ids]
    }),
    db.query({
      name: "pageApprovals",
      text: "SELECT * FROM approvals WHERE workspace_id = $1 AND post_id = ANY($2)",
      values: [caller.workspaceId, ids]
    })
  ])
  const targetsOf = new Map<string, Array<Row>>()
  for (const t of targets) targetsOf.set(t.post_id as string, [...(targetsOf.get(t.post_id as string) ?? []), t])
  const approvalOf = new Map(approvals.map((a) => [a.post_id as string, a]))
  const last = page[page.length - 1]
  const next = posts.length > limit && last !== undefined
    ? (() => {
      const body = Buffer.from(JSON.stringify({ s: Number(last.publish_at), id: last.id })).toString("base64url")
      return `${body}.${sign(body)}`
    })()
    : null
  reply(response, 200, {
    data: page.map((p) => ({
      id: p.id,
      profile_id: p.profile_id,
      caption: p.caption,
      media: p.media,
      status: p.status,
      publish_at: new Date(Number(p.publish_at)).toISOString(),
      created_at: new Date(Number(p.created_at)).toISOString(),
      targets: (targetsOf.get(p.id as string) ?? []).map((t) => ({
        id: t.id,
        account_id: t.account_id,
        platform: t.platform,
        status: t.status,
        permalink: t.permalink,
        published_at: t.published_at === null ? null : new Date(Number(t.published_at)).toISOString()
      })),
      approval: approvalOf.has(p.id as string) ? { status: approvalOf.get(p.id as string)!.status } : null
    })),
    has_more: next !== null,
    next_cursor: next
  })
}

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (c: Buffer) => chunks.push(c))
  request.on("end", () => {
    const work = request.method === "POST" ? create(request, response, Buffer.concat(chunks).toString()) : list(request, response)
    work.catch((error: unknown) => {
      console.error(error)
      if (!response.headersSent) refuse(response, 500, "internal_error")
    })
  })
})
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
