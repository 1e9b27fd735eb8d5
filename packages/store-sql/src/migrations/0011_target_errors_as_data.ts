/**
 * Target errors as data (docs/errors.md, "Stored failures"). Until now `targets.error` held the
 * error rendered once, when the target failed: both messages and a docs address, so a corrected
 * catalog text never reached it and a new public address left a stale link. It now holds what
 * went wrong, `{ code, details?, platform_code?, retryable }`, rendered at every read.
 *
 * Every stored rendered error is converted: `code`, `platform_code` and `retryable` are kept,
 * `message`, `message_id`, `docs`, `target_id` and `issues` dropped. The values its message was
 * filled with are read back from the stored texts where the code's message has placeholders,
 * matching both texts against the catalog's words of this version (kept here, so the migration
 * does the same thing whatever later versions change): a value that differs between the English
 * and Indonesian message is a text in both languages, one that reads the same an identifier or
 * a number. A message that does not match is converted without details (its code's message is
 * then shown without the values).
 *
 * @since 0.4.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The messages with placeholders a target could fail with, as this version's catalog words them. */
const templates: Readonly<Record<string, readonly [en: string, id: string]>> = {
  caption_too_long: [
    "The caption is longer than {limit} characters, the limit of {platform}.",
    "Caption lebih panjang dari {limit} karakter, batas untuk {platform}."
  ],
  media_invalid: ["The media does not fit {platform}: {detail}", "Media tidak sesuai untuk {platform}: {detail}"],
  media_too_long: [
    "The video is {duration} seconds long; this account allows at most {limit} seconds.",
    "Video berdurasi {duration} detik; akun ini mengizinkan paling lama {limit} detik."
  ],
  quota_exceeded: [
    "The account reached its daily posting limit of {limit}. It resets at {resets_at}.",
    "Akun telah mencapai batas unggahan harian {limit}. Batas diatur ulang pada {resets_at}."
  ]
}

type Value = string | number | { readonly en: string; readonly id: string }

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The placeholder values of `message` read against `template`, or undefined when it does not match. */
const readValues = (template: string, message: string): Map<string, string> | undefined => {
  const names: Array<string> = []
  const pattern = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1]
      if (name === undefined) return escapeRegExp(part)
      names.push(name)
      return "(.+?)"
    })
    .join("")
  const match = new RegExp(`^${pattern}$`, "s").exec(message)
  if (match === null) return undefined
  return new Map(names.map((name, i) => [name, match[i + 1]!]))
}

/** The details of a rendered message, read back from both its texts. */
const detailsOf = (code: string, en: unknown, id: unknown): Record<string, Value> | undefined => {
  const template = templates[code]
  if (template === undefined || typeof en !== "string" || typeof id !== "string") return undefined
  const inEnglish = readValues(template[0], en)
  const inIndonesian = readValues(template[1], id)
  if (inEnglish === undefined || inIndonesian === undefined) return undefined
  const details: Record<string, Value> = {}
  for (const [name, english] of inEnglish) {
    const indonesian = inIndonesian.get(name) ?? english
    details[name] =
      english !== indonesian ? { en: english, id: indonesian } : /^\d+$/.test(english) ? Number(english) : english
  }
  return details
}

/** A stored error as data; one already stored as data is returned as it is. */
export const asData = (stored: Record<string, unknown>): Record<string, unknown> => {
  if (!("message" in stored) && !("docs" in stored)) return stored
  const code = String(stored.code)
  const details = detailsOf(code, stored.message, stored.message_id)
  return {
    code,
    ...(details === undefined ? {} : { details }),
    ...(typeof stored.platform_code === "string" ? { platform_code: stored.platform_code } : {}),
    retryable: stored.retryable === true
  }
}

const batch = 500

/** Rewrites every stored target error as data, a page of targets at a time. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let after = { workspace: "", id: "" }
  while (true) {
    const rows = yield* sql<{ readonly workspace_id: string; readonly id: string; readonly error: unknown }>`
      SELECT workspace_id, id, error FROM targets
      WHERE error IS NOT NULL AND (workspace_id, id) > (${after.workspace}, ${after.id})
      ORDER BY workspace_id, id
      LIMIT ${batch}`
    for (const row of rows) {
      const stored: unknown = typeof row.error === "string" ? JSON.parse(row.error) : row.error
      if (typeof stored !== "object" || stored === null) continue
      const data = asData(stored as Record<string, unknown>)
      if (data === stored) continue
      yield* sql`UPDATE targets SET error = ${JSON.stringify(data)}::jsonb
        WHERE workspace_id = ${row.workspace_id} AND id = ${row.id}`
    }
    const last = rows[rows.length - 1]
    if (last === undefined || rows.length < batch) break
    after = { workspace: last.workspace_id, id: last.id }
  }
})
