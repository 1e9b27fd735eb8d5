/**
 * `GET /metrics`: real traffic through a real server (an API request, a post published to the
 * simulated platform, a webhook delivered to a loopback receiver), then the exposition parsed by
 * a strict, independent parser and its counters checked to have moved, with route templates
 * and no ids in any label.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call, errorOf } from "../support/Http.ts"
import { type Family, parse, sampleValue } from "../support/Prometheus.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"
import { aReceiver, type Receiver } from "../webhooks/Receiver.ts"

const token = "metrics-token-for-the-test"

const scrape = async (server: TestServer): Promise<Map<string, Family>> => {
  const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toContain("text/plain")
  return parse(await response.text())
}

describe.each(backends())("GET /metrics (%s)", (backend) => {
  let server: TestServer
  let receiver: Receiver

  beforeAll(async () => {
    receiver = await aReceiver()
    server = await startServer(backend, {
      POSTWIRE_METRICS_TOKEN: token,
      POSTWIRE_PUBLISH_POLL_MS: "50",
      POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "1"
    })
  })
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  it("asks for the metrics token, in the shared error shape", async () => {
    const missing = await call(server.baseUrl, "GET", "/metrics")
    expect(missing.status).toBe(401)
    expect(errorOf(missing).code).toBe("unauthorized")
    const wrong = await call(server.baseUrl, "GET", "/metrics", { headers: { authorization: "Bearer not-it" } })
    expect(wrong.status).toBe(401)
    const indonesian = await call(server.baseUrl, "GET", "/metrics", { headers: { "accept-language": "id" } })
    expect(errorOf(indonesian).message).toBe(errorOf(indonesian).message_id)
    expect(errorOf(indonesian).message).not.toBe(errorOf(missing).message)
  })

  it("counts requests by route template, publishing, platform calls and deliveries after real traffic", async () => {
    const before = await scrape(server)
    const endpoint = await call(server.baseUrl, "POST", "/v1/webhooks", {
      key: server.testKey,
      body: { url: receiver.url, events: ["post.published"] }
    })
    expect(endpoint.status).toBe(201)
    receiver.secret = endpoint.body.secret

    const missing = await call(server.baseUrl, "GET", "/v1/posts/post_01JD0000000000000000000000", { key: server.testKey })
    expect(missing.status).toBe(404)
    const image = await anImage(server)
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [image], { approval: { mode: "none" }, targets: [{ account_id: accountOf(server, "textpost") }] })
    })
    expect(created.status).toBe(201)
    await eventually(async () => {
      const post = await call(server.baseUrl, "GET", `/v1/posts/${created.body.id}`, { key: server.testKey })
      return post.body.status === "published"
    }, "the post to be published")
    await receiver.waitUntil(() => receiver.events.some((event) => event.type === "post.published"), "post.published")
    // The delivery is recorded right after the receiver answers.
    await eventually(async () => {
      const now = await scrape(server)
      return sampleValue(now, "postwire_webhook_deliveries_total", { outcome: "delivered" }) >
        sampleValue(before, "postwire_webhook_deliveries_total", { outcome: "delivered" })
    }, "the delivery to be counted")

    const after = await scrape(server)
    const moved = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels)

    expect(moved("postwire_http_requests_total", { route: "/v1/posts/:id", method: "GET", status: "404" })).toBeGreaterThanOrEqual(1)
    expect(moved("postwire_http_requests_total", { route: "/v1/posts", method: "POST", status: "201" })).toBe(1)
    expect(moved("postwire_http_request_duration_seconds_count", { route: "/v1/posts", method: "POST" })).toBe(1)
    expect(moved("postwire_targets_total", { platform: "textpost", outcome: "published" })).toBe(1)
    expect(moved("postwire_publish_step_duration_seconds_count", { platform: "textpost", outcome: "published" })).toBe(1)
    expect(moved("postwire_publish_delay_seconds_count", { platform: "textpost" })).toBe(1)
    expect(moved("postwire_platform_calls_total", { platform: "textpost", operation: "publish", outcome: "ok" })).toBeGreaterThanOrEqual(1)
    expect(moved("postwire_platform_call_duration_seconds_count", { platform: "textpost", operation: "publish" })).toBeGreaterThanOrEqual(1)
    expect(moved("postwire_webhook_deliveries_total", { outcome: "delivered" })).toBeGreaterThanOrEqual(1)

    for (const name of [
      "postwire_targets_due",
      "postwire_targets_due_oldest_age_seconds",
      "postwire_targets_unconfirmed",
      "postwire_webhook_deliveries_pending",
      "postwire_webhook_events_waiting",
      "postwire_webhook_events_waiting_oldest_age_seconds",
      "postwire_webhook_endpoints_disabled"
    ]) {
      expect(after.get(name)?.type, name).toBe("gauge")
    }
    expect(sampleValue(after, "postwire_background_loop_running", { loop: "publisher" })).toBe(1)
    expect(sampleValue(after, "postwire_background_loop_running", { loop: "dispatcher" })).toBe(1)
    expect(after.get("postwire_http_requests_total")?.type).toBe("counter")
    expect(after.get("postwire_http_request_duration_seconds")?.type).toBe("histogram")
    expect(after.get("postwire_http_requests_total")?.help).toBeTruthy()

    // Templates, never raw paths: no label anywhere carries an id.
    for (const family of after.values()) {
      for (const sample of family.samples) {
        for (const value of Object.values(sample.labels)) expect(value, `${sample.name} ${value}`).not.toMatch(/(post|tgt|acct|whk)_[0-9A-Z]{10}/)
      }
    }
  })

  it("shows the due targets no worker claimed, the events no dispatcher fanned out, and how long the oldest of each has waited", async () => {
    const api = await startServer(backend, { POSTWIRE_ROLE: "api", POSTWIRE_METRICS_TOKEN: token })
    try {
      const image = await anImage(api)
      const created = await call(api.baseUrl, "POST", "/v1/posts", {
        key: api.testKey,
        body: aPost(api, [image], { approval: { mode: "none" } })
      })
      expect(created.body.status).toBe("queued")
      await new Promise((resolve) => setTimeout(resolve, 20))
      const metrics = await scrape(api)
      expect(sampleValue(metrics, "postwire_targets_due")).toBe(1)
      expect(sampleValue(metrics, "postwire_targets_due_oldest_age_seconds")).toBeGreaterThan(0)
      // No dispatcher runs in an API instance: the post's events wait to be fanned out.
      expect(sampleValue(metrics, "postwire_webhook_events_waiting")).toBeGreaterThanOrEqual(1)
      expect(sampleValue(metrics, "postwire_webhook_events_waiting_oldest_age_seconds")).toBeGreaterThan(0)
    } finally {
      await api.stop()
    }
  })
})
