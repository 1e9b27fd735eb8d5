/**
 * A platform of the user's own, as a plugin through `PostwireEngine.make({ platforms })`: a full
 * citizen of the engine (accounts, validation with its rules, publishing to its own HTTP service,
 * exactly once when the answer to the publishing call is lost), and a platform the engine does
 * not serve refused with the known platforms named.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type PlatformEnvReader as EnvReader, makeHandler, PostwireEngine } from "@postwire/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../support/Eventually.ts"
import { blogPlugin } from "./BlogPlugin.ts"
import * as BlogService from "./BlogService.ts"
import { builtinPlatforms } from "@postwire/domain"

/** A 1×1 PNG: the API's create request takes at least one media item; the blog posts its address. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

describe("a platform plugin through PostwireEngine", () => {
  let blog: BlogService.BlogService
  let engine: Awaited<ReturnType<typeof PostwireEngine.make>>
  let dataDir: string

  beforeAll(async () => {
    blog = await BlogService.start()
    dataDir = mkdtempSync(join(tmpdir(), "postwire-plugin-"))
    engine = await PostwireEngine.make({ database: "memory", dataDir, platforms: [blogPlugin(blog.url)] })
  })

  afterAll(async () => {
    await engine?.close()
    await blog?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const workspace = async () => {
    const { id } = await engine.workspaces.create({ name: `blog ${Math.random()}` })
    const ws = engine.workspace(id)
    const profile = await ws.profiles.create({ name: "Main" })
    const account = await ws.accounts.create({
      profile_id: profile.id,
      platform: "blog",
      sandbox: false,
      handle: "team",
      credentials: { token: blog.token }
    })
    const media = await ws.media.upload({ data: PIXEL_PNG })
    return { ws, profile, account, media }
  }

  /** The post's status once publishing ended, asked as a user would. */
  const settled = (ws: Awaited<ReturnType<typeof workspace>>["ws"], id: string) =>
    eventually(() => ws.posts.get(id), (post) => post.status === "published" || post.status === "failed", `post ${id} to publish or fail`)

  it("lists its account with the plugin's rules: its quota and comment capabilities", async () => {
    const { ws, account } = await workspace()
    const read = await ws.accounts.get(account.id)
    expect(read).toMatchObject({ platform: "blog", quota: { limit: 20 }, comments: { read: false, reply: false } })
  })

  it("validates a post with the plugin's rules: its caption limit, named with the platform", async () => {
    const { ws, profile, account, media } = await workspace()
    const result = await ws.posts.validate({
      profile_id: profile.id,
      caption: "x".repeat(281),
      media: [media.id],
      targets: [{ account_id: account.id }],
      approval: { mode: "none" }
    })
    expect(result.issues).toEqual([
      expect.objectContaining({ code: "caption_too_long", field: "caption", message: "The caption is longer than 280 characters, the limit of blog." })
    ])
  })

  it("publishes to the plugin's own service, and exactly once when the answer to the publish is lost", async () => {
    const { ws, profile, account, media } = await workspace()
    const before = blog.posts.length
    blog.loseAnswers = 1
    const created = await ws.posts.create({
      profile_id: profile.id,
      caption: "Hello from the plugin",
      media: [media.id],
      targets: [{ account_id: account.id }],
      approval: { mode: "none" }
    })
    const post = await settled(ws, created.id)
    expect(post.status).toBe("published")
    const published = blog.posts.slice(before)
    expect(published.map((p) => p.text)).toEqual(["Hello from the plugin"])
    // The answer to the one publishing call was lost; the plugin found the post by its marker.
    expect(blog.loseAnswers).toBe(0)
    expect(post.targets[0]).toMatchObject({ status: "published", permalink: published[0]!.url })
  })

  it("refuses an account of a platform it does not serve, naming the known platforms", async () => {
    const { id } = await engine.workspaces.create({ name: "other" })
    const ws = engine.workspace(id)
    const profile = await ws.profiles.create({ name: "Main" })
    const refused = await ws.accounts.create({ profile_id: profile.id, platform: "mastodon", sandbox: true }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: "invalid_request", field: "platform" })
    expect(String((refused as Error).message)).toContain(`${builtinPlatforms.join(", ")}, blog`)
  })

  it("reads the plugin's settings from `env` through its `env` function, as `postwire serve` does, and names a wrong one", async () => {
    const withEnv = { ...blogPlugin("http://127.0.0.1:9"), env: (read: EnvReader) => ({ publish: { baseUrl: read.url("BLOG_URL") } }) }
    const otherDir = mkdtempSync(join(tmpdir(), "postwire-plugin-env-"))
    const other = await PostwireEngine.make({ database: "memory", dataDir: otherDir, platforms: [withEnv], env: { BLOG_URL: `${blog.url}/` } })
    try {
      const { id } = await other.workspaces.create({ name: "env" })
      const ws = other.workspace(id)
      const profile = await ws.profiles.create({ name: "Main" })
      const account = await ws.accounts.create({ profile_id: profile.id, platform: "blog", sandbox: false, handle: "team", credentials: { token: blog.token } })
      const media = await ws.media.upload({ data: PIXEL_PNG })
      const created = await ws.posts.create({
        profile_id: profile.id,
        caption: "Sent where the environment says",
        media: [media.id],
        targets: [{ account_id: account.id }],
        approval: { mode: "none" }
      })
      const post = await eventually(
        () => ws.posts.get(created.id),
        (p) => p.status === "published" || p.status === "failed",
        "the post to be published"
      )
      expect(post.status).toBe("published")
      expect(blog.posts.map((p) => p.text)).toContain("Sent where the environment says")
    } finally {
      await other.close()
      rmSync(otherDir, { recursive: true, force: true })
    }
    // A wrong value stops the start naming the variable, for the engine and the handler alike.
    await expect(PostwireEngine.make({ database: "memory", dataDir, platforms: [withEnv], env: { BLOG_URL: "ftp://blog" } })).rejects.toThrow(/BLOG_URL/)
    await expect(makeHandler({ database: "memory", dataDir, platforms: [withEnv], env: { BLOG_URL: "ftp://blog" } })).rejects.toThrow(/BLOG_URL/)
  })
})
