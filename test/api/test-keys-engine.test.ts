/**
 * Test mode in the embedded engine (issue #37 F1): `engine.workspace(id, { mode: "test" })` acts
 * like a test key through the same use-cases as the server, so it reads and changes only sandbox
 * accounts and what belongs to them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PostwireEngine, PostwireEngineError } from "@postwire/server"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

describe("the engine in test mode", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-engine-"))
  let engine: PostwireEngine.PostwireEngine
  let live: PostwireEngine.EngineWorkspace
  let test: PostwireEngine.EngineWorkspace
  let livePost: string
  let sandboxPost: string
  let liveAccount: string
  let sandboxAccount: string
  beforeAll(async () => {
    engine = await PostwireEngine.make({ database: "memory", dataDir })
    const workspaceId = (await engine.workspaces.create({ name: "Acme" })).id
    live = engine.workspace(workspaceId)
    test = engine.workspace(workspaceId, { mode: "test" })
    const profileId = (await live.profiles.create({ name: "Main" })).id
    liveAccount = (await live.accounts.create({ profile_id: profileId, platform: "pages", sandbox: false, handle: "acme-live" })).id
    sandboxAccount = (await live.accounts.create({ profile_id: profileId, platform: "pages", sandbox: true, handle: "acme-sandbox" })).id
    const media = await live.media.upload({ data: PIXEL_PNG })
    const later = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString()
    const aPost = (accountId: string) => ({
      profile_id: profileId,
      caption: "Saturday sale",
      media: [media.id],
      targets: [{ account_id: accountId }],
      approval: { mode: "none" as const },
      scheduled_at: later
    })
    livePost = (await live.posts.create(aPost(liveAccount))).id
    sandboxPost = (await test.posts.create(aPost(sandboxAccount))).id
  })
  afterAll(async () => {
    await engine?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(PostwireEngineError)
    expect(error).toMatchObject({ code: "test_key_live_account", field: "id" })
  }

  it("cannot read, edit or cancel a live post, which stays as it was", async () => {
    await refusal(test.posts.get(livePost))
    await refusal(test.posts.update(livePost, { caption: "Edited in test mode" }))
    await refusal(test.posts.cancel(livePost))
    expect(await live.posts.get(livePost)).toMatchObject({ caption: "Saturday sale", status: "scheduled" })
    expect((await test.posts.update(sandboxPost, { caption: "Edited in test mode" })).caption).toBe("Edited in test mode")
  })

  it("lists only sandbox posts and accounts, and cannot read a live account", async () => {
    const posts = (await test.posts.list()).data.map((p) => p.id)
    expect(posts).toContain(sandboxPost)
    expect(posts).not.toContain(livePost)
    expect((await live.posts.list()).data.map((p) => p.id)).toContain(livePost)
    const accounts = (await test.accounts.list()).data.map((a) => a.id)
    expect(accounts).toEqual([sandboxAccount])
    await refusal(test.accounts.get(liveAccount))
    expect((await test.accounts.get(sandboxAccount)).id).toBe(sandboxAccount)
  })
})
