/**
 * A fake of Meta's insights reads, as Instagram, Facebook Pages and Threads answer them (each
 * platform's test gives its dialect: version, metrics, refusals):
 *
 * - `GET /{id}/insights?metric=a,b` (an item's lifetime values: `{"data":[{"name","period":
 *   "lifetime","values":[{"value"}],"title","description","id":"{id}/insights/{name}/lifetime"}]}`),
 * - `GET /{user-id}/insights` or `/{user-id}/threads_insights` with `period=day`, `since`,
 *   `until` (Unix seconds): a metric read as a daily series answers `values` with each day's
 *   `end_time` (the end of the day in Pacific time, `…T08:00:00+0000`), one read as a total
 *   (`metric_type=total_value`, or a metric that only has a total) answers `total_value.value`,
 * - `GET /{id}?fields=…` (an item's or the account's fields),
 * - the multiple-id read `GET /?ids=a,b&fields=…` with field expansion (`insights.metric(a,b)`,
 *   `comments.summary(true)`): an object keyed by id, and `(#803) Some of the aliases you
 *   requested do not exist: …` for the whole read when one id does not exist
 *   (https://developers.facebook.com/docs/graph-api/guides/field-expansion/).
 *
 * A wrong token is refused as expired (190/463); without the insights permission every insights
 * read answers `(#10) Application does not have permission for this action`.
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "../fakes/FakeServer.ts"
import { expiredToken, graphError, segments, tokenOf } from "./GraphFake.ts"

/** A published item with its numbers. */
export interface InsightItem {
  readonly id: string
  /** The item's kind as the platform names it (`FEED`, `REELS`, `STORY`, …). */
  type: string
  /** Its plain fields (`like_count`, `shares: {count}`, …). */
  fields: Record<string, unknown>
  /** Its insights metrics, lifetime values. */
  insights: Record<string, unknown>
  /** Insights are refused for it: `(#10) Not enough viewers for the media to show insights`. */
  fewViewers?: boolean
}

/** The account: its fields, daily series and totals. */
export interface InsightUser {
  readonly id: string
  fields: Record<string, unknown>
  /** Per day (`YYYY-MM-DD`, Pacific), per metric. */
  readonly daily: Map<string, Record<string, number>>
  /** Metrics that only have a total (`metric_type=total_value`). */
  totals: Record<string, number>
}

/** What differs between the platforms. */
export interface InsightsDialect {
  readonly version: string
  /** The user insights edge: `insights` (Instagram, Pages) or `threads_insights`. */
  readonly userEdge: string
  /** Whether the host answers the multiple-id read (`?ids=`). */
  readonly multipleIds: boolean
  /** The refusal of an item metric (a retired name, a metric its type lacks), if any. */
  readonly itemMetricRefusal: (item: InsightItem, metric: string) => FakeReply | undefined
  /** The refusal of an account metric, if any. */
  readonly userMetricRefusal: (metric: string, request: FakeRequest) => FakeReply | undefined
}

/** The fake and its knobs. */
export interface InsightsFake extends FakeServer {
  accessToken: string
  /** The token carries the insights permission. */
  insightsScope: boolean
  readonly items: Map<string, InsightItem>
  readonly user: InsightUser
  readonly dialect: InsightsDialect
}

/** Splits a `fields` list at its top-level commas (nested `{…}` and `(…)` kept whole). */
export const splitFields = (fields: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let current = ""
  for (const ch of fields) {
    if (ch === "(" || ch === "{") depth += 1
    if (ch === ")" || ch === "}") depth -= 1
    if (ch === "," && depth === 0) {
      out.push(current.trim())
      current = ""
    } else current += ch
  }
  if (current.trim() !== "") out.push(current.trim())
  return out
}

const noPermission = graphError(403, 10, undefined, { message: "(#10) Application does not have permission for this action" })
const fewViewers = graphError(400, 10, undefined, { message: "(#10) Not enough viewers for the media to show insights" })
const noObject = (id: string) => graphError(400, 100, 33, { message: `Unsupported get request. Object with ID '${id}' does not exist` })

/** The `end_time` of a Pacific day: the next day's midnight in Pacific time, in UTC. */
export const endTimeOf = (day: string): string => {
  const next = new Date(Date.parse(`${day}T08:00:00Z`) + 86_400_000)
  return `${next.toISOString().slice(0, 19)}+0000`
}

/** A Pacific day of a Unix time (standard time, as the fake keeps it simple). */
const pacificDay = (seconds: number) => new Date(seconds * 1000 - 8 * 3_600_000).toISOString().slice(0, 10)

/** Starts the fake; its `url` is the Graph base address with the version. */
export const make = (
  dialect: InsightsDialect,
  user: { readonly id: string; readonly fields?: Record<string, unknown> }
): Effect.Effect<InsightsFake, never, Scope.Scope> =>
  Effect.suspend(() => {
    let fake: InsightsFake

    /** An item's insights answer for `metrics`, or the refusal. */
    const itemInsights = (item: InsightItem, metrics: ReadonlyArray<string>): FakeReply => {
      if (!fake.insightsScope) return noPermission
      for (const metric of metrics) {
        const refused = dialect.itemMetricRefusal(item, metric)
        if (refused !== undefined) return refused
      }
      if (item.fewViewers === true) return fewViewers
      return {
        status: 200,
        json: {
          data: metrics
            .filter((m) => item.insights[m] !== undefined)
            .map((name) => ({
              name,
              period: "lifetime",
              values: [{ value: item.insights[name] }],
              title: name,
              description: `The ${name} of the item`,
              id: `${item.id}/insights/${name}/lifetime`
            }))
        }
      }
    }

    /** An item's (or the account's) fields, with `insights.metric(…)` and `x.summary(true)` expanded. */
    const fieldsOf = (node: { readonly id: string; readonly fields: Record<string, unknown> }, item: InsightItem | undefined, list: string): FakeReply => {
      const out: Record<string, unknown> = { id: node.id }
      for (const f of splitFields(list)) {
        const name = f.replace(/[.{(].*$/, "")
        if (name === "insights" && item !== undefined) {
          const metrics = /metric\(([^)]*)\)/.exec(f)?.[1]?.split(",") ?? []
          const answer = itemInsights(item, metrics)
          if (!("json" in answer) || answer.status !== 200) return answer
          out.insights = answer.json
        } else if (name === "media_product_type" && item !== undefined) out.media_product_type = item.type
        else if (node.fields[name] !== undefined) out[name] = node.fields[name]
      }
      return { status: 200, json: out }
    }

    const userInsights = (request: FakeRequest): FakeReply => {
      if (!fake.insightsScope) return noPermission
      const metrics = (request.params.metric ?? "").split(",").filter((m) => m !== "")
      for (const metric of metrics) {
        const refused = dialect.userMetricRefusal(metric, request)
        if (refused !== undefined) return refused
      }
      const until = Number(request.params.until ?? Math.floor(Date.now() / 1000))
      const since = Number(request.params.since ?? until - 86_400)
      const days: Array<string> = []
      for (let d = pacificDay(since); d <= pacificDay(until - 1); d = new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)) {
        days.push(d)
      }
      const period = request.params.period ?? "day"
      return {
        status: 200,
        json: {
          data: metrics.map((name) => {
            const id = `${fake.user.id}/insights/${name}/${period}`
            const total = fake.user.totals[name]
            if (request.params.metric_type === "total_value" || total !== undefined) {
              return { name, period, title: name, description: `The ${name} of the account`, total_value: { value: total ?? 0 }, id }
            }
            return {
              name,
              period,
              title: name,
              description: `The daily ${name} of the account`,
              values: days.map((day) => ({ value: fake.user.daily.get(day)?.[name] ?? 0, end_time: endTimeOf(day) })),
              id
            }
          })
        }
      }
    }

    return Effect.map(
      start({
        route: (request) => {
          const parts = segments(request, dialect.version)
          if (parts === undefined || request.method !== "GET") return "unknown"
          if (parts.length === 0 && request.params.ids !== undefined) return "ids"
          if (parts.length === 2 && parts[1] === dialect.userEdge && parts[0] === fake.user.id) return "user_insights"
          if (parts.length === 2 && parts[1] === "insights") return "item_insights"
          if (parts.length === 1) return parts[0] === fake.user.id ? "user" : "item"
          return "unknown"
        },
        handle: (route, request) => {
          if (tokenOf(request) !== fake.accessToken) return expiredToken
          const parts = segments(request, dialect.version) ?? []
          switch (route) {
            case "ids": {
              if (!dialect.multipleIds) return graphError(400, 100, undefined, { message: "Unsupported get request." })
              const ids = (request.params.ids ?? "").split(",")
              const missing = ids.filter((id) => !fake.items.has(id))
              if (missing.length > 0) {
                return graphError(404, 803, undefined, { message: `(#803) Some of the aliases you requested do not exist: ${missing.join(",")}`, type: "OAuthException" })
              }
              const out: Record<string, unknown> = {}
              for (const id of ids) {
                const item = fake.items.get(id)!
                const answer = fieldsOf(item, item, request.params.fields ?? "id")
                if (!("json" in answer) || answer.status !== 200) return answer
                out[id] = answer.json
              }
              return { status: 200, json: out }
            }
            case "item": {
              const item = fake.items.get(parts[0]!)
              return item === undefined ? noObject(parts[0]!) : fieldsOf(item, item, request.params.fields ?? "id")
            }
            case "user":
              return fieldsOf(fake.user, undefined, request.params.fields ?? "id")
            case "item_insights": {
              const item = fake.items.get(parts[0]!)
              if (item === undefined) return noObject(parts[0]!)
              return itemInsights(item, (request.params.metric ?? "").split(","))
            }
            case "user_insights":
              return userInsights(request)
            default:
              return graphError(400, 100, undefined, { message: "Unsupported get request." })
          }
        }
      }),
      (server) => {
        fake = Object.assign(server, {
          url: `${server.url}/${dialect.version}`,
          accessToken: "insights-token",
          insightsScope: true,
          items: new Map<string, InsightItem>(),
          user: { id: user.id, fields: user.fields ?? {}, daily: new Map<string, Record<string, number>>(), totals: {} },
          dialect
        })
        return fake
      }
    )
  })
