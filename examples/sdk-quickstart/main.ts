/**
 * Quick start of `@postwire/client` with Promises: find a profile and an account, upload an
 * image, check and create a post that waits for approval, then list the posts awaiting
 * approval with `for await`, across every page.
 *
 * Run it: POSTWIRE_API_KEY=svc_test_... POSTWIRE_BASE_URL=http://localhost:8080 \
 *   node --conditions=@postwire/source --import tsx examples/sdk-quickstart/main.ts
 */
import { pathToFileURL } from "node:url"
import { type Account, type CreatePostInput, type CreatePostResult, type Post, Postwire, PostwireApiError } from "@postwire/client"

/** A 1×1 PNG: the smallest image every image-taking platform accepts as media. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

/** Platforms that take a single image; shortvideo needs a video. Sandbox accounts come first. */
const imagePlatforms: ReadonlyArray<Account["platform"]> = ["pages", "textpost", "photo"]

/** What {@link run} created and found. */
export interface QuickstartResult {
  /** The account the post targets. */
  readonly account: Account
  /** The answer of `posts.create`, with the approval link. */
  readonly created: CreatePostResult
  /** Every post of the profile awaiting approval, the new one included, newest first. */
  readonly awaitingApproval: ReadonlyArray<Post>
}

/** Creates one post with the Promise API and lists the posts awaiting approval. */
export async function run({ apiKey, baseUrl }: { apiKey: string; baseUrl: string }): Promise<QuickstartResult> {
  const postwire = new Postwire({ apiKey, baseUrl })

  // 1. An account that takes an image, a sandbox one when there is one.
  const candidates: Array<Account> = []
  for await (const account of postwire.accounts.list()) {
    if (account.status === "connected" && imagePlatforms.includes(account.platform)) candidates.push(account)
  }
  const account = candidates.find((candidate) => candidate.sandbox) ?? candidates[0]
  if (account === undefined) {
    throw new Error("No connected pages, textpost or photo account: create one with the server's admin command line.")
  }

  // 2. The image, uploaded inline.
  const media = await postwire.media.upload({ data: PIXEL_PNG, filename: "pixel.png" })

  // 3. The post: checked first, then created. It waits for a human to approve it through a link.
  const body: CreatePostInput = {
    profile_id: account.profile_id,
    caption: "Hello from the Postwire SDK quick start",
    media: [media.id],
    targets: [account.platform === "photo" ? { account_id: account.id, photo: { type: "feed" } } : { account_id: account.id }]
  }
  const { issues } = await postwire.posts.validate(body)
  if (issues.length > 0) {
    throw new Error(`The post would be refused: ${issues.map((issue) => `${issue.code} ${issue.message}`).join("; ")}`)
  }
  const created = await postwire.posts.create(body)

  // 4. Every post awaiting approval, page after page.
  const awaitingApproval: Array<Post> = []
  for await (const post of postwire.posts.list({ profile_id: account.profile_id, status: "awaiting_approval" })) {
    awaitingApproval.push(post)
  }

  return { account, created, awaitingApproval }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const apiKey = process.env.POSTWIRE_API_KEY
  if (apiKey === undefined || apiKey === "") {
    console.error("Set POSTWIRE_API_KEY to a key printed by `npx postwire serve` (svc_test_...).")
    process.exit(1)
  }
  try {
    const { account, created, awaitingApproval } = await run({
      apiKey,
      baseUrl: process.env.POSTWIRE_BASE_URL ?? "http://localhost:8080"
    })
    console.log(`Created ${created.id} for ${account.handle} on ${account.platform}: ${created.status}`)
    console.log(`Approve it at ${created.approval?.url}`)
    console.log(`${awaitingApproval.length} post(s) await approval:`)
    for (const post of awaitingApproval) console.log(`  ${post.id}  ${post.caption}`)
  } catch (error) {
    if (error instanceof PostwireApiError) {
      console.error(`${error.status} ${error.code}${error.field ? ` at ${error.field}` : ""}: ${error.message}`)
      console.error(`See ${error.docs}`)
      process.exit(1)
    }
    throw error
  }
}
