/**
 * The engine inside a Node app, with no HTTP: create a workspace, a sandbox account and a post
 * that needs no approval, and wait for the `post.published` event the in-process publisher
 * causes. The guide is docs/embedding.md.
 *
 * Run it from the repository: node --conditions=@postwire/source --import tsx examples/embed-engine/main.ts
 * (in your own app: npm install @postwire/server effect, and run it with node).
 */
import { pathToFileURL } from "node:url"
import { type EngineEvent, PostwireEngine } from "@postwire/server"

/** A 1×1 PNG: the smallest image the sandbox platforms accept. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

/** What {@link run} saw. */
export interface EmbedResult {
  /** The post as `posts.get` returns it once published. */
  readonly post: Awaited<ReturnType<PostwireEngine.EngineWorkspace["posts"]["get"]>>
  /** Every event the subscriber received, in order. */
  readonly events: ReadonlyArray<EngineEvent>
}

/**
 * Runs the example. `database` is `"memory"` in the test; leave it out to keep the data in
 * `./.postwire` across restarts, or pass a `postgres://` URL.
 */
export async function run({ database = "embedded", dataDir }: { database?: string; dataDir?: string } = {}): Promise<EmbedResult> {
  const engine = await PostwireEngine.make({ database, dataDir })
  try {
    // 1. Every event the engine causes, as it happens; resolve once the post is published.
    const events: Array<EngineEvent> = []
    let publishedNow: (event: EngineEvent) => void = () => {}
    const published = new Promise<EngineEvent>((resolve) => {
      publishedNow = resolve
    })
    engine.events.subscribe((event) => {
      events.push(event)
      if (event.type === "post.published") publishedNow(event)
    })

    // 2. A workspace, a profile and a sandbox account (it publishes to the simulated platform).
    const { id: workspaceId } = await engine.workspaces.create({ name: "Acme" })
    const acme = engine.workspace(workspaceId)
    const profile = await acme.profiles.create({ name: "Acme main" })
    const account = await acme.accounts.create({ profile_id: profile.id, platform: "pages", sandbox: true })

    // 3. An image and a post that skips approval: the publisher picks it up at once.
    const media = await acme.media.upload({ data: PIXEL_PNG, filename: "pixel.png" })
    const created = await acme.posts.create({
      profile_id: profile.id,
      caption: "Hello from an app that embeds Postwire",
      media: [media.id],
      targets: [{ account_id: account.id }],
      approval: { mode: "none" }
    })
    console.log(`Created ${created.id} (${created.status})`)

    // 4. The publisher runs in this process and reports through the subscriber.
    const event = await published
    console.log(`Published to ${String(event.data.platform)}: ${String(event.data.permalink)}`)
    return { post: await acme.posts.get(created.id), events }
  } finally {
    await engine.close()
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
