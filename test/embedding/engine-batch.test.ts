/**
 * `PostwireEngine.make`'s `posts.createBatch`: the batch use-case in process, with each created
 * item's events on the feed and a full day refused in its place.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EngineEvent, PostwireEngine } from "@postwire/server"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

describe("PostwireEngine posts.createBatch", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-engine-batch-"))
  let engine: PostwireEngine.PostwireEngine
  beforeAll(async () => {
    engine = await PostwireEngine.make({ database: "memory", dataDir })
  })
  afterAll(async () => {
    await engine?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("creates each item on its own, refuses a full day in its place, and sends only the created items' events", async () => {
    const acme = engine.workspace((await engine.workspaces.create({ name: "Acme" })).id)
    const profileId = (await acme.profiles.create({ name: "Main" })).id
    const account = await acme.accounts.create({ profile_id: profileId, platform: "photo", sandbox: true, daily_quota: 1 })
    const media = await acme.media.upload({ data: PIXEL_PNG })
    const seen: Array<EngineEvent["type"]> = []
    const stop = engine.events.subscribe((event) => {
      seen.push(event.type)
    })
    const item = (scheduledAt: string) => ({
      profile_id: profileId,
      caption: "Daily",
      media: [media.id],
      targets: [{ account_id: account.id }],
      approval: { mode: "none" as const },
      scheduled_at: scheduledAt
    })
    const result = await acme.posts.createBatch({
      items: [item("2031-06-01T09:00:00+07:00"), item("2031-06-01T21:00:00+07:00"), item("2031-06-03T09:00:00+07:00")]
    })
    stop()
    expect(result.data.map((r) => r.status)).toEqual([201, 429, 201])
    expect(result.data[1]?.error?.field).toBe("items[1].scheduled_at")
    expect(seen).toEqual(["post.scheduled", "post.scheduled"])
  })
})
