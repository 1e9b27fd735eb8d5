import { describe, expect, it } from "vitest"
import { run } from "./main.ts"

describe("examples/custom-platform", () => {
  it("publishes a post to the blog of its own plugin, once, with the blog's address as the permalink", async () => {
    const { post, entries } = await run({ database: "memory" })
    expect(post.status).toBe("published")
    expect(entries.map((entry) => entry.text)).toEqual(["Hello from a platform of our own"])
    expect(post.targets[0]).toMatchObject({ platform: "blog", status: "published", permalink: entries[0]!.url })
  })
})
