/**
 * A plugin's per-target options over HTTP (`makeHandler` on loopback): `targets[].blog` decoded
 * with the plugin's schema (400 naming the field), completed or refused by its `resolve` (422),
 * stored with the target, shown under `targets[].options.blog` by create, get, PATCH and the
 * list, checked alike by validate, and read by the plugin's publisher from the stored target (which
 * publishes to the address the plugin's `env` read); the OpenAPI document and /docs describe them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Postwire, PostwireApiError } from "@postwire/client"
import { allScopes, builtinPlatforms } from "@postwire/domain"
import { type PlatformEnvReader as EnvReader, makeHandler, type PostwireHandler } from "@postwire/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callTool, connectHttp, resultOf, textOf } from "../../mcp/McpClients.ts"
import { eventually } from "../../support/Eventually.ts"
import { blogPlugin } from "./BlogPlugin.ts"
import * as BlogService from "./BlogService.ts"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
const adminToken = "pw_admin_plugin_options_0123456789abcdef"

interface ErrorBody {
  readonly error: { readonly code: string; readonly field?: string; readonly message: string; readonly issues?: ReadonlyArray<{ code: string; field?: string }> }
}
interface TargetBody {
  readonly id: string
  readonly status: string
  readonly options: Record<string, unknown>
}
interface PostBody {
  readonly id: string
  readonly status: string
  readonly targets: ReadonlyArray<TargetBody>
}

const blogExample = {
  summary: "Team blog: formal notes with two tags",
  value: {
    profile_id: "prof_01JDQM9S346Q3D25VT4F5V37E3",
    caption: "Quarterly notes",
    media: ["med_01JDQYA1DQ91K5GQAPENECFSEC"],
    targets: [{ account_id: "acc_01JDQ0YP57RCYBVN5SXS5AA819", blog: { tone: "formal", tags: ["q3"] } }],
    approval: { mode: "none" }
  }
} as const

describe("a plugin's per-target options over HTTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-plugin-options-"))
  let blog: BlogService.BlogService
  let server: Server
  let handler: PostwireHandler
  let base: string
  let key: string
  let profileId: string
  let blogAccount: string
  let pagesAccount: string
  let media: Array<string>

  const admin = async <A>(path: string, body: unknown): Promise<A> => {
    const response = await fetch(`${base}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    expect(response.status, await response.clone().text()).toBe(201)
    return (await response.json()) as A
  }
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: (await response.json()) as unknown }
  }
  const aPost = (target: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    profile_id: profileId,
    caption: "Quarterly notes",
    media: [media[0]],
    targets: [{ account_id: blogAccount, ...target }],
    approval: { mode: "none" },
    ...extra
  })

  beforeAll(async () => {
    blog = await BlogService.start()
    server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    // The blog's address comes from the environment through the plugin's `env`, as with `postwire serve`.
    const plugin = {
      ...blogPlugin("http://127.0.0.1:9", true),
      env: (read: EnvReader) => ({ publish: { baseUrl: read.url("BLOG_URL") } }),
      examples: { blog_formal: blogExample }
    }
    handler = await makeHandler({ publicUrl: base, database: "memory", dataDir, adminToken, platforms: [plugin], env: { BLOG_URL: blog.url } })
    server.on("request", handler.node)
    await handler.start()
    const workspace = await admin<{ id: string }>("/workspaces", { name: "options" })
    key = (await admin<{ key: string }>(`/workspaces/${workspace.id}/keys`, { kind: "live", scopes: allScopes })).key
    profileId = (await admin<{ id: string }>(`/workspaces/${workspace.id}/profiles`, { name: "Main" })).id
    blogAccount = (
      await admin<{ id: string }>(`/workspaces/${workspace.id}/accounts`, {
        profile_id: profileId,
        platform: "blog",
        sandbox: false,
        handle: "team",
        credentials: { token: blog.token }
      })
    ).id
    pagesAccount = (
      await admin<{ id: string }>(`/workspaces/${workspace.id}/accounts`, { profile_id: profileId, platform: "pages", sandbox: true })
    ).id
    media = []
    for (let i = 0; i < 2; i++) {
      const uploaded = await api("POST", "/v1/media", { data: PIXEL_PNG })
      expect(uploaded.status).toBe(201)
      media.push((uploaded.body as { id: string }).id)
    }
  })

  afterAll(async () => {
    await handler?.close()
    await new Promise<void>((resolve) => server?.close(() => resolve()))
    await blog?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("stores the options given, shows them on create and get, and the publisher reads them from the target", async () => {
    const created = await api("POST", "/v1/posts", aPost({ blog: { tone: "formal", tags: ["q3", "report"] } }, { caption: "Formal notes" }))
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const post = created.body as PostBody
    expect(post.targets[0]!.options).toEqual({ blog: { tone: "formal", tags: ["q3", "report"] } })

    const published = await eventually(
      async () => (await api("GET", `/v1/posts/${post.id}`)).body as PostBody,
      (p) => p.status === "published" || p.status === "failed",
      "the post to be published"
    )
    expect(published.status).toBe("published")
    expect(published.targets[0]!.options).toEqual({ blog: { tone: "formal", tags: ["q3", "report"] } })
    expect(blog.posts.find((p) => p.text === "Formal notes")).toMatchObject({ tone: "formal" })
  })

  it("fills the plugin's default when the target has no options", async () => {
    const created = await api("POST", "/v1/posts", aPost({}, { approval: { mode: "link" } }))
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect((created.body as PostBody).targets[0]!.options).toEqual({ blog: { tone: "casual" } })
  })

  it("refuses options that do not decode with the plugin's schema, naming the field, on create and validate", async () => {
    const wrongTone = await api("POST", "/v1/posts", aPost({ blog: { tone: "loud" } }))
    expect(wrongTone.status).toBe(400)
    expect((wrongTone.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].blog.tone" })
    expect((wrongTone.body as ErrorBody).error.message).toContain('"formal", "casual"')

    const unknownKey = await api("POST", "/v1/posts", aPost({ blog: { tone: "casual", colour: "red" } }))
    expect(unknownKey.status).toBe(400)
    expect((unknownKey.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].blog.colour" })

    const tooManyTags = await api("POST", "/v1/posts", aPost({ blog: { tone: "casual", tags: ["a", "b", "c", "d"] } }))
    expect((tooManyTags.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].blog.tags" })

    const validated = await api("POST", "/v1/posts/validate", aPost({ blog: { tone: "loud" } }))
    expect(validated.status).toBe(200)
    expect((validated.body as { issues: Array<unknown> }).issues).toEqual([
      expect.objectContaining({ code: "invalid_request", field: "targets[0].blog.tone" })
    ])
    const clean = await api("POST", "/v1/posts/validate", aPost({ blog: { tone: "casual" } }))
    expect(clean.body).toEqual({ issues: [] })
  })

  it("answers the plugin's refusal from resolve with 422 naming the option, on create and validate", async () => {
    const request = aPost({ blog: { tone: "formal" } }, { media })
    const refused = await api("POST", "/v1/posts", request)
    expect(refused.status).toBe(422)
    expect((refused.body as ErrorBody).error).toMatchObject({
      code: "media_invalid",
      field: "targets[0].blog.tone",
      message: "The media does not fit blog: a post takes at most 1 images or videos"
    })
    const validated = await api("POST", "/v1/posts/validate", request)
    expect((validated.body as { issues: Array<unknown> }).issues).toEqual([
      expect.objectContaining({ code: "media_invalid", field: "targets[0].blog.tone" })
    ])
  })

  it("takes a platform's options only on its own accounts, and refuses a key that is no platform's", async () => {
    const onPages = await api("POST", "/v1/posts", {
      ...aPost({}),
      targets: [{ account_id: pagesAccount, blog: { tone: "casual" } }]
    })
    expect(onPages.status).toBe(400)
    expect((onPages.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].blog" })

    const photoOnBlog = await api("POST", "/v1/posts", aPost({ photo: { type: "feed" } }))
    expect(photoOnBlog.status).toBe(400)
    expect((photoOnBlog.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].photo" })

    // The word of a platform without options is no key of a target, as before.
    const pagesOnBlog = await api("POST", "/v1/posts", aPost({ pages: {} }))
    expect((pagesOnBlog.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].pages" })
    expect((pagesOnBlog.body as ErrorBody).error.message).toContain("is not a known field")

    const unknown = await api("POST", "/v1/posts", aPost({ mastodon: { visibility: "public" } }))
    expect(unknown.status).toBe(400)
    expect((unknown.body as ErrorBody).error).toMatchObject({ code: "invalid_request", field: "targets[0].mastodon" })
    expect((unknown.body as ErrorBody).error.message).toContain("is not a known field")
  })

  it("keeps the options through a PATCH and shows them in the list", async () => {
    const created = await api("POST", "/v1/posts", aPost({ blog: { tone: "formal" } }, { approval: { mode: "link" } }))
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = (created.body as PostBody).id
    const patched = await api("PATCH", `/v1/posts/${id}`, { caption: "Revised notes" })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect((patched.body as PostBody).targets[0]!.options).toEqual({ blog: { tone: "formal" } })
    const listed = (await api("GET", "/v1/posts?platform=blog&limit=100")).body as { data: Array<PostBody> }
    expect(listed.data.find((p) => p.id === id)?.targets[0]?.options).toEqual({ blog: { tone: "formal" } })
  })

  it("lists the served platforms in the OpenAPI document and describes the plugin's options under the target, as /docs shows", async () => {
    const document = (await (await fetch(`${base}/v1/openapi.json`)).json()) as Record<string, any>
    const create = document.paths["/v1/posts"].post
    const requestTarget = create.requestBody.content["application/json"].schema.properties.targets.items
    expect(requestTarget.properties.blog).toMatchObject({
      type: "object",
      properties: { tone: { type: "string", enum: ["formal", "casual"] }, tags: { type: "array", maxItems: 3 } },
      required: ["tone"],
      description: expect.stringContaining("Only for blog accounts")
    })
    expect(requestTarget.additionalProperties).toBe(false)
    const responseTarget = create.responses["201"].content["application/json"].schema.properties.targets.items
    expect(responseTarget.properties.platform.enum).toEqual([...builtinPlatforms, "blog"])
    expect(responseTarget.properties.options.properties.blog).toMatchObject({ properties: { tone: { enum: ["formal", "casual"] } } })
    const listFilter = document.paths["/v1/posts"].get.parameters.find((p: { name: string }) => p.name === "platform")
    expect(listFilter.schema.enum).toEqual([...builtinPlatforms, "blog"])
    const account = document.paths["/v1/accounts/{id}"].get.responses["200"].content["application/json"].schema
    expect(account.properties.platform.enum).toContain("blog")

    // The plugin's create example beside the built-in platforms', in place of the contract's neutral one.
    for (const path of ["/v1/posts", "/v1/posts/validate"]) {
      const json = document.paths[path].post.requestBody.content["application/json"]
      expect(json.examples.blog_formal).toEqual(blogExample)
      expect(Object.keys(json.examples)).toEqual(expect.arrayContaining(["shortvideo_direct_and_inbox", "photo_reel", "blog_formal"]))
      expect(Object.keys(json.examples)).not.toContain("one_image_now")
      expect(json.schema.examples).toEqual(Object.values(json.examples).map((e) => (e as { value: unknown }).value))
    }

    const page = await (await fetch(`${base}/docs`)).text()
    expect(page).toContain("Options of a `blog` (Team blog) target")
  })

  it("takes and shows a plugin's options through the SDK, whose types take any platform's key", async () => {
    const client = new Postwire({ apiKey: key, baseUrl: base })
    const created = await client.posts.create({
      profile_id: profileId,
      caption: "Through the SDK",
      media: [media[0]!],
      targets: [{ account_id: blogAccount, blog: { tone: "formal" } }],
      approval: { mode: "link" }
    })
    expect(created.targets[0]?.options).toEqual({ blog: { tone: "formal" } })
    const refused = await client.posts
      .create({ profile_id: profileId, caption: "x", media: [media[0]!], targets: [{ account_id: blogAccount, blog: { tone: "loud" } }] })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(PostwireApiError)
    expect(refused).toMatchObject({ code: "invalid_request", field: "targets[0].blog.tone" })
  })

  it("describes the served platforms to agents over MCP, from the registry, and takes the plugin's options in create_post", async () => {
    const agent = await connectHttp(base, { key })
    try {
      expect(agent.client.getInstructions()).toContain("Team blog = blog")
      const { tools } = await agent.client.listTools()
      const create = tools.find((t) => t.name === "create_post")!
      const target = (create.inputSchema.properties as Record<string, any>).targets.items
      expect(target.properties.blog).toMatchObject({ properties: { tone: { enum: ["formal", "casual"] } } })
      const rules = JSON.parse(textOf(await agent.client.readResource({ uri: "postwire://platform-rules" })))
      expect(rules.platforms.find((p: { platform: string }) => p.platform === "blog")).toMatchObject({
        name: "Team blog",
        caption_max_characters: 280,
        default_daily_quota: 20
      })
      const validated = resultOf(
        await callTool(agent.client, "validate_post", {
          profile_id: profileId,
          caption: "From an agent",
          media: [media[0]],
          targets: [{ account_id: blogAccount, blog: { tone: "formal" } }]
        })
      )
      expect(validated.issues).toEqual([])
    } finally {
      await agent.close()
    }
  })

  it("shows a plugin's own failure reason: a code of the catalog, its platform_code, its own words in both languages", async () => {
    const created = await api("POST", "/v1/posts", aPost({}, { caption: "A forbidden word" }))
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = (created.body as PostBody).id
    const failed = await eventually(
      async () => (await api("GET", `/v1/posts/${id}`)).body as { status: string; targets: Array<{ status: string; error: Record<string, unknown> | null }> },
      (p) => p.status === "failed" || p.status === "published",
      "the post to fail"
    )
    expect(failed.targets[0]).toMatchObject({
      status: "failed",
      error: {
        code: "caption_invalid",
        platform_code: "blog_word_not_allowed",
        retryable: false,
        message: 'The caption does not fit blog: the blog does not publish the word "forbidden"',
        message_id: expect.stringContaining('blog tidak menerbitkan kata "forbidden"')
      }
    })
  })
})
