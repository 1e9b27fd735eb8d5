/**
 * Threads insights, as the fake of Meta's insights reads serves them (`../meta/InsightsFake.ts`),
 * from https://developers.facebook.com/documentation/threads/insights: media metrics `views`,
 * `likes`, `replies`, `reposts`, `quotes`, `shares`; user metrics on `threads_insights` (`views`
 * a daily series, `followers_count` a total); any other name is refused with code 100. No
 * multiple-id read.
 */
import { graphError } from "../meta/GraphFake.ts"
import * as InsightsFake from "../meta/InsightsFake.ts"

/** The Threads user the fake serves. */
export const threadsUserId = "26010000000000001"

const mediaMetrics = new Set(["views", "likes", "replies", "reposts", "quotes", "shares"])
const userMetrics = new Set(["views", "likes", "replies", "reposts", "quotes", "clicks", "followers_count", "follower_demographics"])

const invalid = (metric: string) => graphError(400, 100, undefined, { type: "THApiException", message: `(#100) Param metric[0] must be one of the valid metrics. ${metric} is not valid.` })

export const dialect: InsightsFake.InsightsDialect = {
  version: "v1.0",
  userEdge: "threads_insights",
  multipleIds: false,
  itemMetricRefusal: (_item, metric) => (mediaMetrics.has(metric) ? undefined : invalid(metric)),
  userMetricRefusal: (metric) => (userMetrics.has(metric) ? undefined : invalid(metric))
}

/** Starts the Threads insights fake. */
export const make = () => InsightsFake.make(dialect, { id: threadsUserId, fields: { username: "maya.bakes" } })
