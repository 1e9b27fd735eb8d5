/**
 * A workspace's history, written straight into the schema with `generate_series`: posts that
 * were published long ago, each with two targets (one per account), an approval on every tenth
 * post, one dispatched outbox event per post, and optionally its delivery to a webhook endpoint. The history-bound test and the history benches
 * share it, so both measure the same shape of data.
 *
 * Every row is old: the newest is two days before `endAt`, outside every quota window, so a
 * create into the seeded accounts is never refused for its quota.
 */

/** Whose history, and how much of it. */
export interface History {
  readonly workspaceId: string
  readonly profileId: string
  /** The two accounts the targets go to (the first of each post, then the second). */
  readonly accounts: readonly [string, string]
  /** The platform of both accounts. */
  readonly platform: string
  /** Posts numbered `from` to `to` (inclusive) are written; grow a history by seeding the next range. */
  readonly from: number
  readonly to: number
  /** Post `n` was published `n` minutes before two days before this instant. */
  readonly endAt: number
  /** When given, every event was delivered to this webhook endpoint (one delivery per post). */
  readonly endpointId?: string | undefined
  /** Keeps the ids of two seeded workspaces apart (default `H`). */
  readonly tag?: string | undefined
  /**
   * The account of a post's first (0) or second (1) target as an SQL expression of the series'
   * `g`, in place of `accounts` (to spread a history over many accounts).
   */
  readonly accountSql?: ((position: 0 | 1) => string) | undefined
}

const day = 24 * 60 * 60 * 1000

/** The SQL statements that write the history, in order; no parameters, values are inlined. */
export const historyStatements = (h: History): ReadonlyArray<string> => {
  const text = (value: string) => `'${value.replaceAll("'", "''")}'`
  const tag = h.tag ?? "H"
  const id = (prefix: string) => `'${prefix}_${tag}' || lpad(g::text, 20, '0')`
  const at = `(${h.endAt - 2 * day} - g::bigint * 60000)`
  const failed = `g % 20 = 0`
  const series = `generate_series(${h.from}, ${h.to}) AS g`
  const [first, second] = h.accounts
  // A failure as the publisher stores it (data, rendered when read).
  const failure = JSON.stringify({ code: "platform_unavailable", platform_code: "2207026", retryable: false })
  const target = (suffix: string, position: 0 | 1, account: string) => `
    SELECT ${text(h.workspaceId)}, ${id("tgt")} || '${suffix}', ${id("post")}, ${position}, ${h.accountSql?.(position) ?? text(account)}, ${text(h.platform)},
      CASE WHEN ${failed} THEN 'failed' ELSE 'published' END, '{"photo":{"type":"feed"}}'::jsonb, NULL::jsonb,
      CASE WHEN ${failed} THEN NULL ELSE 'https://example.com/p/' || g || '${suffix}' END,
      CASE WHEN ${failed} THEN NULL ELSE ${at} END,
      CASE WHEN ${failed} THEN '${failure}'::jsonb ELSE NULL END,
      1, NULL::jsonb, NULL::bigint, NULL::text, NULL::bigint, ${at}, ${at}
    FROM ${series}`
  return [
    `INSERT INTO posts (workspace_id, id, profile_id, caption, media, scheduled_at, ai_generated, approval_mode, notify,
        status, publish_at, created_at, updated_at, version)
      SELECT ${text(h.workspaceId)}, ${id("post")}, ${text(h.profileId)}, 'From the archive, number ' || g, '[]'::jsonb, NULL,
        false, CASE WHEN g % 10 = 0 THEN 'link' ELSE 'none' END, NULL,
        CASE WHEN ${failed} THEN 'failed' ELSE 'published' END, ${at}, ${at} - 3600000, ${at}, 3
      FROM ${series}`,
    `INSERT INTO targets (workspace_id, id, post_id, position, account_id, platform, status, options, consent, permalink,
        published_at, error, attempts, platform_state, due_at, lease_owner, lease_until, updated_at, quota_at)
      ${target("a", 0, first)} UNION ALL ${target("b", 1, second)}`,
    `INSERT INTO approvals (workspace_id, id, post_id, token_hash, status, expires_at, decided_at, reason, created_at)
      SELECT ${text(h.workspaceId)}, ${id("appr")}, ${id("post")}, ${id("tok")}, 'approved', ${at} + ${day}, ${at} - 60000,
        NULL, ${at} - 3600000
      FROM ${series} WHERE g % 10 = 0`,
    `INSERT INTO approval_tokens (token_hash, workspace_id, post_id, approval_id)
      SELECT ${id("tok")}, ${text(h.workspaceId)}, ${id("post")}, ${id("appr")} FROM ${series} WHERE g % 10 = 0`,
    // Fanned out long ago: in the log, not queued in outbox_pending.
    `INSERT INTO outbox_events (workspace_id, id, type, created_at, livemode, data)
      SELECT ${text(h.workspaceId)}, ${id("evt")}, 'post.published', ${at}, false,
        jsonb_build_object('post_id', ${id("post")})
      FROM ${series}`,
    ...(h.endpointId === undefined
      ? []
      : [
        `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, id, event_type, status, attempts,
            first_attempt_at, last_attempt_at, next_attempt_at, last_status_code, last_error, lease_owner, lease_until, created_at)
          SELECT ${text(h.workspaceId)}, ${text(h.endpointId)}, ${id("evt")}, ${id("dlv")}, 'post.published', 'delivered', 1,
            ${at}, ${at}, NULL, 200, NULL, NULL, NULL, ${at}
          FROM ${series}`
      ]),
    "ANALYZE"
  ]
}
