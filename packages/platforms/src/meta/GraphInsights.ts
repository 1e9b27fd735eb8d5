/**
 * What the three Meta analytics adapters (Instagram, Facebook Pages, Threads) read the same way:
 * the `data` list of an insights answer (a metric's lifetime value, its `total_value`, or its
 * daily `values` with their `end_time`), several items in one call by Graph's multiple-id read
 * (`GET /?ids=a,b,c&fields=…`, with field expansion such as `insights.metric(…)`), and the day
 * a daily value belongs to.
 *
 * Answer shapes: https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
 * (`{"data":[{"name","period","values":[{"value"}],"title","description","id"}]}`),
 * https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights
 * (`total_value: {value}` with `metric_type=total_value`), and the multiple-id read of
 * https://developers.facebook.com/docs/graph-api/guides/field-expansion/ .
 *
 * @internal
 */
import type {
  AccountDay,
  AccountMetricName,
  AccountRecord,
  MetricValues,
  PlatformFailure,
  PostMetricName,
  RawMetrics,
  TargetRecord
} from "@postwire/core"
import { Effect } from "effect"
import { failure, field, numberField, stringField } from "../internal/Wire.ts"
import { dataOf, platformPostIdOf } from "../comments/CommentAdapter.ts"
import { type Call, inSession } from "./GraphComments.ts"
import type { GraphApi } from "./GraphApi.ts"
import type { OpenPage } from "./Sessions.ts"

/** A metric's value as kept in `raw`: a number, or a breakdown object as JSON text. */
const rawValue = (value: unknown): number | string | null =>
  typeof value === "number" ? value : value === null || value === undefined ? null : JSON.stringify(value)

/**
 * The latest value of each metric of an insights answer (`{data:[…]}`), by the platform's name:
 * `total_value.value` when given, else the last of `values`.
 */
export const latestValues = (body: unknown): Record<string, number | string | null> => {
  const out: Record<string, number | string | null> = {}
  for (const entry of dataOf(body)) {
    const name = stringField(entry, "name")
    if (name === undefined) continue
    const total = field(entry, "total_value")
    const values = field(entry, "values")
    const last = Array.isArray(values) && values.length > 0 ? field(values[values.length - 1], "value") : undefined
    out[name] = rawValue(total !== undefined ? field(total, "value") : last)
  }
  return out
}

/**
 * The day a daily value belongs to: Meta stamps it with the end of its day (`end_time`, midnight
 * Pacific time as UTC, `2026-12-04T08:00:00+0000` for December 3), so the day is the UTC date
 * 24 hours before.
 */
export const dayOf = (endTime: string): string | undefined => {
  const millis = Date.parse(endTime.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"))
  return Number.isFinite(millis) ? new Date(millis - 86_400_000).toISOString().slice(0, 10) : undefined
}

/** The daily `values` of an insights answer, by day then by the platform's metric name. */
export const dailyValues = (body: unknown): Map<string, Record<string, number | string | null>> => {
  const days = new Map<string, Record<string, number | string | null>>()
  for (const entry of dataOf(body)) {
    const name = stringField(entry, "name")
    const values = field(entry, "values")
    if (name === undefined || !Array.isArray(values)) continue
    for (const v of values) {
      const end = stringField(v, "end_time")
      const day = end === undefined ? undefined : dayOf(end)
      if (day === undefined) continue
      const at = days.get(day) ?? {}
      at[name] = rawValue(field(v, "value"))
      days.set(day, at)
    }
  }
  return days
}

/** Normalized values from raw ones: each normalized name from the first platform name present as a number. */
export const normalize = <N extends PostMetricName | AccountMetricName>(
  raw: RawMetrics,
  names: Readonly<Partial<Record<N, ReadonlyArray<string>>>>
): MetricValues<N> => {
  const out: Partial<Record<N, number>> = {}
  for (const name in names) {
    for (const platformName of names[name] ?? []) {
      const value = raw[platformName]
      if (typeof value === "number") {
        out[name] = value
        break
      }
    }
  }
  return out as MetricValues<N>
}

/**
 * Whether a failure says an item does not exist: the multiple-id read's `(#803) Some of the
 * aliases you requested do not exist: …` or a single read's `(#100) … Object with ID '…' does not
 * exist` (code 100, subcode 33).
 */
export const isMissing = (f: PlatformFailure): boolean => f.platformCode === "803" || f.platformCode === "100/33"

/** The items of a multiple-id read, and the ids Graph said do not exist. */
export interface ManyRead {
  readonly items: ReadonlyMap<string, unknown>
  readonly gone: ReadonlyArray<string>
  readonly calls: number
}

/**
 * Reads `fields` of several ids in one call (`GET /?ids=…&fields=…`). An id that no longer exists
 * makes Graph refuse the whole read (803) without saying which in a form the failure keeps: each
 * id is then asked alone (`GET /{id}?fields=id`, one call each, only when an item was deleted),
 * those missing are `gone`, and the rest is read again in one call.
 */
export const readMany = (
  graph: GraphApi,
  call: Call,
  ids: ReadonlyArray<string>,
  fields: string
): Effect.Effect<ManyRead, PlatformFailure> =>
  Effect.gen(function* () {
    const items = new Map<string, unknown>()
    let calls = 0
    const read = (wanted: ReadonlyArray<string>) =>
      Effect.map(
        call((token) => graph.get("", { ids: wanted.join(","), fields }, token)),
        (body) => {
          for (const id of wanted) {
            const item = field(body, id)
            if (item !== undefined) items.set(id, item)
          }
        }
      )
    if (ids.length === 0) return { items, gone: [], calls }
    calls += 1
    const first = yield* Effect.result(read(ids))
    if (first._tag === "Success") return { items, gone: [], calls }
    if (!isMissing(first.failure)) return yield* Effect.fail(first.failure)
    const gone: Array<string> = []
    const kept: Array<string> = []
    for (const id of ids) {
      calls += 1
      const alone = yield* Effect.result(call((token) => graph.get(id, { fields: "id" }, token)))
      if (alone._tag === "Success") kept.push(id)
      else if (isMissing(alone.failure)) gone.push(id)
      else return yield* Effect.fail(alone.failure)
    }
    if (kept.length > 0) {
      calls += 1
      yield* read(kept)
    }
    return { items, gone, calls }
  })

/** A `count` field (`shares: {count}`, `comments: {summary: {total_count}}`), if a number. */
export const countAt = (value: unknown, ...path: ReadonlyArray<string>): number | undefined => {
  let at = value
  for (const key of path.slice(0, -1)) at = field(at, key)
  return numberField(at, path[path.length - 1]!)
}

/** Splits ids into groups of at most `size`. */
export const chunks = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** Steps of a Facebook Page with its Page token (the account's `externalId` is the Page id). */
export const pageSteps =
  (openSession: OpenPage) =>
  <A extends object>(account: AccountRecord, step: (call: Call, pageId: string) => Effect.Effect<A, PlatformFailure>) =>
    Effect.gen(function* () {
      const pageId = account.externalId
      if (pageId === null) return yield* Effect.fail(failure("permission_missing", "page_id_missing", { needsReconnect: true }))
      const session = yield* openSession(account, pageId)
      return yield* inSession(session, (c) => c.page_access_token, (call) => step(call, pageId))
    })

/**
 * The Unix-second range of an account read: from the start of the day `since` (Meta's days start
 * at midnight Pacific time, 08:00 UTC in standard time), at most `maxDays` back, to `now`.
 */
export const dayRange = (since: string, now: number, maxDays: number): { readonly since: number; readonly until: number } => {
  const until = Math.floor(now / 1000)
  const earliest = until - (maxDays - 1) * 86_400
  const asked = Math.floor(Date.parse(`${since}T08:00:00Z`) / 1000)
  return { since: Number.isFinite(asked) ? Math.max(asked, earliest) : earliest, until }
}

/** The account days of a daily insights answer, normalized by `names`. */
export const accountDays = (
  body: unknown,
  names: Readonly<Partial<Record<AccountMetricName, ReadonlyArray<string>>>>
): Array<AccountDay> => [...dailyValues(body)].map(([date, raw]) => ({ date, metrics: normalize(raw, names), raw }))

/** The numbers among an answer's fields, by name. */
export const numbersOf = (body: unknown, names: ReadonlyArray<string>): Record<string, number | string | null> => {
  const out: Record<string, number | string | null> = {}
  for (const name of names) {
    const value = field(body, name)
    if (typeof value === "number") out[name] = value
  }
  return out
}

/** Maps each platform item id to the targets that published it (a target without one is skipped). */
export const itemsOf = (targets: ReadonlyArray<TargetRecord>): Map<string, Array<TargetRecord["id"]>> => {
  const out = new Map<string, Array<TargetRecord["id"]>>()
  for (const target of targets) {
    const id = platformPostIdOf(target)
    if (id !== null) out.set(id, [...(out.get(id) ?? []), target.id])
  }
  return out
}
