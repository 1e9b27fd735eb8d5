import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { run } from "./main.ts"

describe("examples/embed-engine", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-embed-"))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("publishes a sandbox post through the Promise API and delivers its events to the subscriber", async () => {
    const { post, events } = await run({ database: "memory", dataDir })
    expect(post.status).toBe("published")
    expect(post.targets[0]?.permalink).toMatch(/^https?:\/\//)
    const ofPost = events.filter((event) => event.data.post_id === post.id).map((event) => event.type)
    expect(ofPost).toEqual(["post.publishing", "post.published"])
    const published = events.find((event) => event.type === "post.published")!
    expect(published.data).toMatchObject({ post_id: post.id, target_id: post.targets[0]!.id, platform: "pages" })
    expect(published.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(events.some((event) => event.type === "account.connected")).toBe(true)
  })
})
