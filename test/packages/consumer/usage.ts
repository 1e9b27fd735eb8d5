/**
 * A typed use of the installed SDK, checked with `strict` and `skipLibCheck: false`, then run
 * against a server started from the installed `@postwire/server` (POSTWIRE_BASE_URL,
 * POSTWIRE_API_KEY). Prints what it saw as JSON.
 */
import { type Account, type CreatePostInput, type Post, Postwire, PostwireApiError } from "@postwire/client"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: process.env.POSTWIRE_BASE_URL! })

const accounts: Array<Account> = []
for await (const account of postwire.accounts.list()) accounts.push(account)
const pages = accounts.find((account) => account.platform === "pages" && account.sandbox)
if (pages === undefined) throw new Error("no sandbox pages account")

const media = await postwire.media.upload({ data: PIXEL_PNG, filename: "pixel.png" })
const input: CreatePostInput = {
  profile_id: pages.profile_id,
  caption: "From a fresh app",
  media: [media.id],
  targets: [{ account_id: pages.id }],
  approval: { mode: "none" }
}
const created = await postwire.posts.create(input)
const status: Post["status"] = created.status

let notFound = ""
try {
  await postwire.posts.get("post_01JD0000000000000000000000")
} catch (error) {
  if (error instanceof PostwireApiError) notFound = `${error.status} ${error.code}`
}

console.log(JSON.stringify({ created: created.id, status, accounts: accounts.length, notFound }))
