/**
 * A platform of your own, served by Postwire's engine beside the built-in four: start a small
 * blog (the platform), make the engine with the blog's plugin, create a live account of it with
 * the blog's token, and publish a post to it. The guide is docs/platforms.md.
 *
 * Run it: npm start (in this folder of the repository), or from the repository root:
 * node --conditions=@postwire/source --import tsx examples/custom-platform/main.ts
 */
import { pathToFileURL } from "node:url"
import { PostwireEngine } from "@postwire/server"
import { type Entry, startBlog } from "./blog.ts"
import { blogPlatform } from "./plugin.ts"

/** A 1×1 PNG: a post takes at least one media item (the blog posts the caption). */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

/** What {@link run} saw. */
export interface CustomPlatformResult {
  /** The post as `posts.get` returns it once publishing ended. */
  readonly post: Awaited<ReturnType<PostwireEngine.EngineWorkspace["posts"]["get"]>>
  /** What the blog holds afterwards. */
  readonly entries: ReadonlyArray<Entry>
}

/**
 * Runs the example. `database` is `"memory"` by default (nothing is kept); pass `"embedded"` to
 * keep the data in `dataDir`, or a `postgres://` URL.
 */
export async function run({ database = "memory", dataDir }: { database?: string; dataDir?: string } = {}): Promise<CustomPlatformResult> {
  const blog = await startBlog()
  console.log(`The blog listens on ${blog.url}`)
  const engine = await PostwireEngine.make({ database, dataDir, platforms: [blogPlatform(blog.url)] })
  try {
    const { id: workspaceId } = await engine.workspaces.create({ name: "Acme" })
    const acme = engine.workspace(workspaceId)
    const profile = await acme.profiles.create({ name: "Acme main" })
    // The plugin has no connect flow: its account is created with its credentials (sealed at rest).
    const account = await acme.accounts.create({
      profile_id: profile.id,
      platform: "blog",
      sandbox: false,
      handle: "acme",
      credentials: { token: blog.token }
    })
    const media = await acme.media.upload({ data: PIXEL_PNG, filename: "pixel.png" })
    const created = await acme.posts.create({
      profile_id: profile.id,
      caption: "Hello from a platform of our own",
      media: [media.id],
      targets: [{ account_id: account.id }],
      approval: { mode: "none" }
    })
    console.log(`Created ${created.id} (${created.status})`)

    // The publisher runs in this process; the post ends published (or failed).
    let post = await acme.posts.get(created.id)
    while (post.status !== "published" && post.status !== "failed") {
      await new Promise((resolve) => setTimeout(resolve, 200))
      post = await acme.posts.get(created.id)
    }
    console.log(`Post ${post.status}: ${post.targets[0]?.permalink ?? post.targets[0]?.error?.message ?? ""}`)
    console.log(`The blog holds ${blog.entries.length} post(s): ${blog.entries.map((entry) => JSON.stringify(entry.text)).join(", ")}`)
    return { post, entries: [...blog.entries] }
  } finally {
    await engine.close()
    await blog.close()
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
