/**
 * Traces over OTLP/HTTP: a server pointed at a loopback OTLP receiver (`OTEL_EXPORTER_OTLP_ENDPOINT`)
 * sends spans as Effect's exporter writes them (OTLP JSON); the test rebuilds the parent-child
 * chains and checks that one trace runs from the HTTP request through the use-case to each SQL
 * statement, and another from a claimed target to its platform call, with the ids as attributes
 * and a link back to the request's use-case span.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { accountOf, anImage, aPost } from "../support/Builders.ts"
import { eventually } from "../support/Eventually.ts"
import { call } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly attributes: Readonly<Record<string, unknown>>
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string; readonly attributes: Readonly<Record<string, unknown>> }>
  readonly service: unknown
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
type KeyValue = { key: string; value: AnyValue }

const decodeValue = (value: AnyValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue))

const attributesOf = (list: ReadonlyArray<KeyValue> | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodeValue(value)]))

/** A collector's OTLP/HTTP traces endpoint on loopback, keeping every span it receives. */
const aCollector = async () => {
  const spans: Array<Span> = []
  const contentTypes = new Set<string>()
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end()
        return
      }
      contentTypes.add(String(req.headers["content-type"]))
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: Array<{
          resource: { attributes: Array<KeyValue> }
          scopeSpans: Array<{
            spans: Array<{
              traceId: string
              spanId: string
              parentSpanId?: string
              name: string
              attributes?: Array<KeyValue>
              links?: Array<{ traceId: string; spanId: string; attributes?: Array<KeyValue> }>
            }>
          }>
        }>
      }
      for (const resourceSpans of body.resourceSpans) {
        const resource = attributesOf(resourceSpans.resource.attributes)
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
              name: span.name,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId, attributes: attributesOf(link.attributes) })),
              service: resource
            })
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** The chain of spans from `span` up to its trace's root. */
const ancestry = (spans: ReadonlyArray<Span>, span: Span): Array<Span> => {
  const chain = [span]
  let current = span
  while (current.parentSpanId !== undefined) {
    const parent = spans.find((s) => s.spanId === current.parentSpanId && s.traceId === current.traceId)
    if (parent === undefined) break
    chain.push(parent)
    current = parent
  }
  return chain
}

describe.each(backends())("traces over OTLP/HTTP (%s)", (backend) => {
  let collector: Awaited<ReturnType<typeof aCollector>>
  let server: TestServer

  beforeAll(async () => {
    collector = await aCollector()
    server = await startServer(backend, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "postwire-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      POSTWIRE_PUBLISH_POLL_MS: "50"
    })
  })
  afterAll(async () => {
    await server?.stop()
    await collector?.close()
  })

  it("sends one trace from the request through the use-case to each SQL statement, and one from the claimed target to its platform call, linked to the request", async () => {
    const image = await anImage(server)
    const created = await call(server.baseUrl, "POST", "/v1/posts", {
      key: server.testKey,
      body: aPost(server, [image], { approval: { mode: "none" }, targets: [{ account_id: accountOf(server, "textpost") }] })
    })
    expect(created.status).toBe(201)
    const postId = created.body.id as string
    const targetId = created.body.targets[0].id as string
    const requestId = created.headers.get("x-request-id")

    // The request: its server span, the use-case under it, SQL statements under that.
    const request = await eventually(() =>
      collector.spans.find((s) => s.attributes["http.route"] === "/v1/posts" && s.attributes["http.request.method"] === "POST"),
      "the request's server span"
    )
    expect(request.parentSpanId).toBeUndefined()
    expect(request.attributes["postwire.request_id"]).toBe(requestId)
    expect(request.service).toMatchObject({ "service.name": "postwire-under-test" })
    const statements = await eventually(() => {
      const found = collector.spans.filter(
        (s) => s.traceId === request.traceId && typeof s.attributes["db.query.text"] === "string"
      )
      return found.some((s) => ancestry(collector.spans, s).some((a) => a.name === "posts.create")) ? found : undefined
    }, "the request's SQL statements")
    const insert = statements.find((s) => /INSERT INTO posts/i.test(String(s.attributes["db.query.text"])))
    expect(insert, "the INSERT of the post is traced").toBeDefined()
    const chain = ancestry(collector.spans, insert!).map((s) => s.spanId)
    expect(chain.at(-1)).toBe(request.spanId)
    expect(ancestry(collector.spans, insert!).map((s) => s.name)).toContain("posts.create")
    // Parameters are not in the statement text: the caption is not.
    for (const statement of statements) expect(String(statement.attributes["db.query.text"])).not.toContain("Hello from Postwire")

    // Publishing: the claimed target's own trace, the platform call inside it.
    const claimed = await eventually(() =>
      collector.spans.find((s) => s.name === "publishing.target" && s.attributes["postwire.target_id"] === targetId),
      "the claimed target's span"
    )
    expect(claimed.attributes["postwire.post_id"]).toBe(postId)
    // Its own trace, linked to the use-case span of the request that created the post.
    const useCase = collector.spans.find((s) => s.name === "posts.create" && s.traceId === request.traceId)
    expect(useCase, "the request's posts.create span").toBeDefined()
    expect(claimed.traceId).not.toBe(request.traceId)
    expect(claimed.parentSpanId).toBeUndefined()
    expect(claimed.links).toEqual([
      { traceId: request.traceId, spanId: useCase!.spanId, attributes: { "postwire.link": "created_by" } }
    ])
    const platformCall = await eventually(() =>
      collector.spans.find((s) => s.name === "platform.publish" && s.traceId === claimed.traceId),
      "the platform call's span"
    )
    expect(platformCall.attributes).toMatchObject({
      "postwire.target_id": targetId,
      "postwire.post_id": postId,
      "postwire.platform": "textpost"
    })
    const path = ancestry(collector.spans, platformCall)
    expect(path.at(-1)?.spanId).toBe(claimed.spanId)
    expect(path.map((s) => s.name)).toContain("publishing.publishTarget")
    expect([...collector.contentTypes]).toEqual(["application/json"])
  })

  it("keeps credentials out of spans: no key, no approval token", async () => {
    const image = await anImage(server)
    const created = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: aPost(server, [image]) })
    expect(created.status).toBe(201)
    const token = (created.body.approval.url as string).split("/approve/")[1]!
    expect((await fetch(`${server.baseUrl}/approve/${token}`)).status).toBe(200)
    const decided = await call(server.baseUrl, "POST", `/v1/approvals/${token}/decision`, { body: { decision: "reject" } })
    expect(decided.status).toBe(200)
    // The page's use-case is traced (a root of its own: the page's request gets no server span).
    await eventually(() => collector.spans.find((s) => s.name === "approvals.page"), "the approval page's spans")
    await eventually(() => collector.spans.find((s) => s.name === "approvals.decide"), "the decision's spans")
    const everything = JSON.stringify(collector.spans)
    expect(everything.includes(token)).toBe(false)
    expect(everything.includes(server.testKey)).toBe(false)
  })
})
