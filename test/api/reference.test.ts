/**
 * The API reference as a user reads it: the OpenAPI document the server serves (which `/docs`
 * renders and the SDK's types come from), its examples posted to the real server, and the error
 * reference's index.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ErrorCatalog, errorCodes, type Platform, platforms } from "@postwire/domain"
import { anImage, aVideo } from "../support/Builders.ts"
import { call } from "../support/Http.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"

type Json = Record<string, any>

interface NamedExample {
  readonly summary: string
  readonly value: Json
}

const methods = ["get", "put", "post", "delete", "patch"] as const

/** Every operation of the document, as `METHOD path` with its object. */
const operationsOf = (document: Json): Array<[string, Json]> =>
  Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => (item[method] === undefined ? [] : [[`${method.toUpperCase()} ${path}`, item[method]] as [string, Json]]))
  )

/**
 * The places of a JSON Schema where a description is missing: every property of every object,
 * however deeply nested (through items, unions and additional properties). Returns how many
 * properties were looked at, so that an empty walk cannot pass.
 */
const undescribedProperties = (schema: unknown, at: string, missing: Array<string>): number => {
  if (Array.isArray(schema)) return schema.reduce((n: number, s, i) => n + undescribedProperties(s, `${at}[${i}]`, missing), 0)
  if (typeof schema !== "object" || schema === null) return 0
  let seen = 0
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === "examples" || key === "example" || key === "enum" || key === "const" || key === "default") continue
    if (key === "properties") {
      for (const [name, property] of Object.entries<Json>(value)) {
        seen++
        if (typeof property.description !== "string" || property.description.trim() === "") missing.push(`${at}.${name}`)
        seen += undescribedProperties(property, `${at}.${name}`, missing)
      }
    } else {
      seen += undescribedProperties(value, `${at}/${key}`, missing)
    }
  }
  return seen
}

/** Replaces each placeholder id in a body, as a value or as a key (consent is keyed by target id). */
const substitute = <A>(body: A, ids: ReadonlyMap<string, string>): A => {
  if (typeof body === "string") return (ids.get(body) ?? body) as A
  if (Array.isArray(body)) return body.map((item) => substitute(item, ids)) as A
  if (typeof body !== "object" || body === null) return body
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [ids.get(key) ?? key, substitute(value, ids)])) as A
}

/** The platform an example is for, from its name (`photo_reel` → `photo`). */
const platformOfExample = (name: string): Platform => {
  const platform = platforms.find((p) => name === p || name.startsWith(`${p}_`))
  if (platform === undefined) throw new Error(`example ${name} does not start with a platform word`)
  return platform
}

describe("API reference", () => {
  let server: TestServer
  let document: Json
  beforeAll(async () => {
    server = await startServer("embedded")
    const reply = await call(server.baseUrl, "GET", "/v1/openapi.json")
    expect(reply.status).toBe(200)
    document = reply.body
  })
  afterAll(() => server?.stop())

  describe("GET /v1/openapi.json", () => {
    it("gives every operation a summary and a description", () => {
      const operations = operationsOf(document)
      expect(operations.length).toBeGreaterThanOrEqual(18)
      const undocumented = operations
        .filter(([, op]) => typeof op.summary !== "string" || typeof op.description !== "string" || op.description.length < 20)
        .map(([name]) => name)
      expect(undocumented).toEqual([])
    })

    it("describes every field of every request, response and error body, and every parameter", () => {
      const missing: Array<string> = []
      let seen = 0
      for (const [name, op] of operationsOf(document)) {
        for (const parameter of op.parameters ?? []) {
          seen++
          if (typeof parameter.description !== "string") missing.push(`${name} parameter ${parameter.name}`)
        }
        seen += undescribedProperties(op.requestBody, `${name} request`, missing)
        seen += undescribedProperties(op.responses, `${name} responses`, missing)
      }
      seen += undescribedProperties(document.components.schemas, "components.schemas", missing)
      expect(seen).toBeGreaterThan(500)
      expect(missing).toEqual([])
    })

    it("gives every group a description", () => {
      const tags: Array<Json> = document.tags
      expect(tags.map((t) => t.name)).toEqual(expect.arrayContaining(["posts", "accounts", "profiles", "media", "webhooks", "approvals", "system"]))
      expect(tags.filter((t) => typeof t.description !== "string").map((t) => t.name)).toEqual([])
    })

    it("states where the request and the response put a target's platform options", () => {
      const create = document.paths["/v1/posts"].post
      const requestTarget = create.requestBody.content["application/json"].schema.properties.targets.items
      const responseTarget = create.responses["201"].content["application/json"].schema.properties.targets.items
      expect(requestTarget.description).toContain("targets[].options")
      expect(responseTarget.properties.options.description).toContain("`targets[].shortvideo`")
      expect(responseTarget.properties.options.description).toContain("`targets[].options.shortvideo`")
    })

    it("declares the API key as an HTTP bearer scheme, spelled lowercase, with its format", () => {
      expect(document.components.securitySchemes).toEqual({
        bearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: expect.stringContaining("svc_test_"),
          description: expect.stringContaining("Authorization: Bearer")
        }
      })
      const publicOperations = ["POST /v1/approvals/{token}/decision", "GET /health"]
      for (const [name, op] of operationsOf(document)) {
        expect([name, op.security]).toEqual([name, publicOperations.includes(name) ? [] : [{ bearer: [] }]])
      }
    })

    it("documents the headers real answers carry: rate limits everywhere, Retry-After on 429, Idempotent-Replayed on replays", async () => {
      for (const [name, op] of operationsOf(document)) {
        if (name === "GET /health") {
          expect(Object.values<Json>(op.responses).every((r) => r.headers === undefined)).toBe(true)
          continue
        }
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          const documented = Object.keys(response.headers ?? {})
          expect([name, status, documented]).toEqual([name, status, expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])])
          expect([name, status, documented.includes("Retry-After")]).toEqual([name, status, status === "429"])
        }
      }
      const createHeaders = Object.keys(document.paths["/v1/posts"].post.responses["201"].headers)
      expect(createHeaders).toContain("Idempotent-Replayed")
      // What the document promises is what an answer carries, errors included.
      const ok = await fetch(`${server.baseUrl}/v1/profiles`, { headers: { authorization: `Bearer ${server.testKey}` } })
      const refused = await fetch(`${server.baseUrl}/v1/posts/post_unknown`, { headers: { authorization: `Bearer ${server.testKey}` } })
      for (const answer of [ok, refused]) {
        for (const header of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]) {
          expect([answer.status, header, answer.headers.get(header)]).toEqual([answer.status, header, expect.stringMatching(/^\d+$/)])
        }
      }
      const body = { profile_id: server.profileId, caption: "Once", media: [await anImage(server)], targets: [{ account_id: server.accounts.find((a) => a.platform === "textpost")?.id }] }
      const headers = { "idempotency-key": `reference-${Date.now()}` }
      await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body, headers })
      const replay = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body, headers })
      expect([replay.status, replay.headers.get("Idempotent-Replayed")]).toEqual([201, "true"])
    })

    it("accepts a lowercase or capitalised Bearer scheme from clients", async () => {
      for (const scheme of ["bearer", "Bearer", "BEARER"]) {
        const reply = await fetch(`${server.baseUrl}/v1/profiles`, { headers: { authorization: `${scheme} ${server.testKey}` } })
        expect([scheme, reply.status]).toEqual([scheme, 200])
      }
    })
  })

  describe("create examples", () => {
    const examplesOf = (path: string): Record<string, NamedExample> =>
      document.paths[path].post.requestBody.content["application/json"].examples

    it("offers one per platform, for create and validate, each target with only its platform's options", () => {
      const examples = examplesOf("/v1/posts")
      const names = Object.keys(examples)
      expect(new Set(names.map(platformOfExample))).toEqual(new Set(platforms))
      expect(names).toEqual(expect.arrayContaining(["shortvideo_direct_and_inbox", "photo_reel", "photo_carousel"]))
      expect(examplesOf("/v1/posts/validate")).toEqual(examples)
      // The schema carries the same bodies, for viewers that read only the schema.
      const schema = document.paths["/v1/posts"].post.requestBody.content["application/json"].schema
      expect(schema.examples).toEqual(Object.values(examples).map((e) => e.value))
      for (const [name, { summary, value }] of Object.entries(examples)) {
        expect(summary.length, name).toBeGreaterThan(10)
        const platform = platformOfExample(name)
        for (const target of value.targets as Array<Json>) {
          const options = Object.keys(target).filter((key) => key !== "account_id")
          expect([name, options.every((key) => key === platform)]).toEqual([name, true])
        }
        if ("scheduled_at" in value) expect(value.scheduled_at, name).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})$/)
      }
      const tiktok = examples.shortvideo_direct_and_inbox?.value.targets as Array<Json>
      expect(tiktok.map((t) => t.shortvideo.mode)).toEqual(["direct", "inbox"])
      expect(tiktok[0]?.shortvideo.consent).toMatchObject({ music_usage_confirmed: true })
      expect(examples.photo_carousel?.value.media.length).toBeGreaterThan(1)
    })

    /**
     * An example made real: a fresh sandbox account for each of its account ids, on its platform,
     * and an upload for each of its media ids (a video where the platform takes one).
     */
    const realize = async (name: string, example: Json): Promise<Json> => {
      const platform = platformOfExample(name)
      const ids = new Map<string, string>([[example.profile_id, server.profileId]])
      for (const target of example.targets as Array<Json>) {
        const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
          profile_id: server.profileId,
          platform,
          sandbox: true,
          handle: `example-${name}`
        })
        ids.set(target.account_id, account.id)
      }
      const takesVideo = platform === "shortvideo" || platform === "video" || (example.targets as Array<Json>).some((t) => t.photo?.type === "reel")
      for (const media of example.media as Array<string>) {
        if (!ids.has(media)) ids.set(media, takesVideo ? await aVideo(server) : await anImage(server))
      }
      return substitute(example, ids)
    }

    it("validates each with no issue once its ids name resources of the workspace", async () => {
      for (const [name, { value }] of Object.entries(examplesOf("/v1/posts/validate"))) {
        const reply = await call(server.baseUrl, "POST", "/v1/posts/validate", { key: server.testKey, body: await realize(name, value) })
        expect([name, reply.status, reply.body]).toEqual([name, 200, { issues: [] }])
      }
    })

    it("creates a post from each (201), with the options it sent shown under targets[].options", async () => {
      for (const [name, { value }] of Object.entries(examplesOf("/v1/posts"))) {
        const body = await realize(name, value)
        const reply = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body })
        expect([name, reply.status]).toEqual([name, 201])
        const sent = body.targets as Array<Json>
        const created = reply.body.targets as Array<Json>
        expect(created.map((t) => t.account_id)).toEqual(sent.map((t) => t.account_id))
        sent.forEach((target, i) => {
          const { account_id: _, ...options } = target
          expect([name, i, created[i]?.options]).toEqual([name, i, expect.objectContaining(options)])
        })
        const expectsLink = (body.approval?.mode ?? "link") === "link"
        expect([name, reply.body.approval !== undefined]).toEqual([name, expectsLink])
      }
    })
  })

  describe("other request examples", () => {
    const schemaExamplesOf = (path: string, method: string): Array<Json> =>
      document.paths[path][method].requestBody.content["application/json"].schema.examples ?? []

    it("gives every request body an example without empty strings", () => {
      for (const [name, op] of operationsOf(document)) {
        const json = op.requestBody?.content?.["application/json"]
        if (json === undefined) continue
        // A body that may also be null (rotate-secret) is `anyOf: [object, null]`: its example is the object's.
        const examples: Array<unknown> = json.schema.examples ?? json.schema.anyOf?.find((member: Json) => member.examples)?.examples ?? []
        expect([name, examples.length > 0]).toEqual([name, true])
        expect([name, JSON.stringify(examples).includes('""')]).toEqual([name, false])
      }
    })

    it("uploads the media example (201)", async () => {
      for (const example of schemaExamplesOf("/v1/media", "post")) {
        const reply = await call(server.baseUrl, "POST", "/v1/media", { key: server.testKey, body: example })
        expect([reply.status, reply.body.kind, reply.body.filename]).toEqual([201, "image", example.filename ?? null])
      }
    })

    it("updates a post with each PATCH example (200)", async () => {
      for (const example of schemaExamplesOf("/v1/posts/{id}", "patch")) {
        const created = await call(server.baseUrl, "POST", "/v1/posts", {
          key: server.testKey,
          body: { profile_id: server.profileId, caption: "Draft", media: [await anImage(server)], targets: [{ account_id: server.accounts.find((a) => a.platform === "textpost")?.id }] }
        })
        expect(created.status).toBe(201)
        const reply = await call(server.baseUrl, "PATCH", `/v1/posts/${created.body.id}`, { key: server.testKey, body: example })
        expect([reply.status, reply.body.caption]).toEqual([200, example.caption ?? "Draft"])
      }
    })

    it("decides an approval link with each decision example (200)", async () => {
      for (const example of schemaExamplesOf("/v1/approvals/{token}/decision", "post")) {
        const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, { profile_id: server.profileId, platform: "shortvideo", sandbox: true })
        const created = await call(server.baseUrl, "POST", "/v1/posts", {
          key: server.testKey,
          body: { profile_id: server.profileId, caption: "Review me", media: [await aVideo(server)], targets: [{ account_id: account.id, shortvideo: { mode: "direct" } }] }
        })
        expect(created.status).toBe(201)
        const token = (created.body.approval.url as string).split("/approve/")[1]
        const placeholderTargets = Object.keys(example.consent ?? {})
        const body = substitute(example, new Map(placeholderTargets.map((id) => [id, created.body.targets[0].id])))
        const reply = await call(server.baseUrl, "POST", `/v1/approvals/${token}/decision`, { body })
        expect([reply.status, reply.body.decision]).toEqual([200, example.decision])
      }
    })
  })

  describe("GET /docs/errors", () => {
    it("opens with an index of every code, its HTTP status and retryability, linking to its entry", async () => {
      const response = await fetch(`${server.baseUrl}/docs/errors`)
      expect(response.status).toBe(200)
      const page = await response.text()
      const index = page.slice(page.indexOf('<table id="index">'), page.indexOf("</table>"))
      const rows = [...index.matchAll(/<tr>\s*<th scope="row"><a href="#([a-z_]+)"><code>([a-z_]+)<\/code><\/a><\/th>\s*<td>(\d+)<\/td>\s*<td>(yes|no)<\/td>/g)]
      expect(rows.map((r) => r[1])).toEqual([...errorCodes])
      for (const [, anchor, code, status, retryable] of rows) {
        const entry = ErrorCatalog[code as keyof typeof ErrorCatalog]
        expect([anchor, Number(status), retryable]).toEqual([code, entry.status, entry.retryable ? "yes" : "no"])
        expect(page).toContain(`<section id="${code}"`)
      }
      // The index comes before the entries it links to.
      expect(page.indexOf('<table id="index">')).toBeLessThan(page.indexOf("<section id="))
    })
  })
})
