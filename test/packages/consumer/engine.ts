/**
 * The engine embedded as docs/embedding.md shows it: a workspace, a sandbox account, a post,
 * and the `post.published` event delivered to a callback. Prints what it saw as JSON.
 */
import { type EngineEvent, PostwireEngine, PostwireEngineError } from "@postwire/server"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

const engine = await PostwireEngine.make({ database: "memory", dataDir: process.env.DATA_DIR })
const events: Array<EngineEvent["type"]> = []
const published = new Promise<EngineEvent>((resolve) => {
  engine.events.subscribe((event) => {
    events.push(event.type)
    if (event.type === "post.published") resolve(event)
  })
})

const { id } = await engine.workspaces.create({ name: "Acme" })
const acme = engine.workspace(id)
const profile = await acme.profiles.create({ name: "Main" })
const account = await acme.accounts.create({ profile_id: profile.id, platform: "textpost", sandbox: true })
const media = await acme.media.upload({ data: PIXEL_PNG })

let invalidField: string | undefined
try {
  // Plain JavaScript callers get the same checks as the API.
  await acme.posts.create(JSON.parse('{"profile_id":"prof_x","caption":"x","media":[],"targets":[],"colour":"red"}'))
} catch (error) {
  if (error instanceof PostwireEngineError) invalidField = `${error.code} ${error.field}`
}

const post = await acme.posts.create({
  profile_id: profile.id,
  caption: "Embedded",
  media: [media.id],
  targets: [{ account_id: account.id }],
  approval: { mode: "none" }
})
const event = await published
const final = await acme.posts.get(post.id)
await engine.close()
console.log(JSON.stringify({ status: final.status, permalink: event.data.permalink, events, invalidField }))
