/**
 * A server with analytics to draw: posts published to two sandbox accounts of different
 * platforms, read by the collection worker over several days of a movable clock (the simulated
 * platform's numbers grow with each item's age).
 */
import { anImage, accountOf, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { aMovableClock, type MovableClock } from "../support/MovableClock.ts"
import { type Backend, startServer, type TestServer } from "../support/TestServer.ts"

/** What {@link aServerWithAnalytics} made. */
export interface ServerWithAnalytics {
  readonly server: TestServer
  readonly clock: MovableClock
  /** The platforms published to, by their word. */
  readonly platforms: ReadonlyArray<string>
  /** The posts published, one per platform, in the same order. */
  readonly posts: ReadonlyArray<string>
  /** A range, `YYYY-MM-DD` in UTC, covering every reading. */
  readonly from: string
  readonly to: string
}

const day = 86_400_000
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The latest reading time of each target of a post, once every target has one. */
const readings = async (server: TestServer, postId: string): Promise<Array<string | null>> => {
  const reply = await call(server.baseUrl, "GET", `/v1/posts/${postId}/metrics`, { key: server.testKey })
  return (reply.body.targets as Array<{ collected_at: string | null }>).map((t) => t.collected_at)
}

/**
 * Starts a server, publishes one post to a sandbox `photo` and one to a sandbox `textpost`
 * account, and walks the clock through `days` days, waiting after each step until every target
 * has been read at the new time.
 */
export const aServerWithAnalytics = async (backend: Backend, days = 3): Promise<ServerWithAnalytics> => {
  const clock = aMovableClock()
  const server = await startServer(
    backend,
    { POSTWIRE_PUBLISH_POLL_MS: "100", POSTWIRE_ANALYTICS_POLL_MS: "100" },
    { clock: clock.clock }
  )
  const start = clock.now()
  const platforms = ["photo", "textpost"]
  const image = await anImage(server)
  const posts: Array<string> = []
  for (const platform of platforms) {
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [image], { caption: `Growing on ${platform}`, approval: { mode: "none" }, targets: [{ account_id: accountOf(server, platform) }] })
    })
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`)
    posts.push(created.body.id)
  }
  for (const id of posts) {
    await eventually(() => call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: server.testKey }), (r) => r.body.status === "published", `post ${id} published`)
  }
  // A reading every few hours, then a day at a time: each step waits until every target was read after it.
  const steps = [2 * 3_600_000, ...Array.from({ length: days }, () => day)]
  for (const step of steps) {
    clock.advance(step)
    const at = clock.now()
    for (const id of posts) {
      await eventually(
        () => readings(server, id),
        (times) => times.every((time) => time !== null && Date.parse(time) >= at),
        `post ${id} read after the clock moved to ${new Date(at).toISOString()}`
      )
    }
  }
  return { server, clock, platforms, posts, from: dateOf(start - day), to: dateOf(clock.now()) }
}
