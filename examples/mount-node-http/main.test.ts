import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type App, start } from "./main.ts"

describe("examples/mount-node-http", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-mount-"))
  let app: App
  beforeAll(async () => {
    app = await start({ port: 0, database: "memory", dataDir })
  })
  afterAll(async () => {
    await app?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("serves the app's own routes and the Postwire API under /postwire with the first start's key", async () => {
    expect(await (await fetch(`${app.url}/`)).text()).toBe("The app's own page\n")
    const key = app.postwire.firstRun!.testKey
    const accounts = await fetch(`${app.url}/postwire/v1/accounts`, { headers: { authorization: `Bearer ${key}` } })
    expect(accounts.status).toBe(200)
    const body = (await accounts.json()) as { data: Array<{ platform: string; sandbox: boolean }> }
    // One sandbox account per built-in platform, as the first start made them.
    expect(body.data.map((a) => a.platform).sort()).toEqual(app.postwire.firstRun!.accounts.map((a) => a.platform).sort())
    expect(body.data.map((a) => a.platform)).toEqual(expect.arrayContaining(["shortvideo", "photo", "pages", "textpost"]))
  })

  it("publishes a post in the background work the app started", async () => {
    const key = app.postwire.firstRun!.testKey
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const media = await (
      await fetch(`${app.url}/postwire/v1/media`, {
        method: "POST",
        headers,
        body: JSON.stringify({ data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=" })
      })
    ).json()
    const account = app.postwire.firstRun!.accounts.find((a) => a.platform === "textpost")!
    const created = await fetch(`${app.url}/postwire/v1/posts`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        profile_id: app.postwire.firstRun!.profileId,
        caption: "Mounted",
        media: [media.id],
        targets: [{ account_id: account.id }],
        approval: { mode: "none" }
      })
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    let status = ""
    while (status !== "published" && status !== "failed") {
      await new Promise((resolve) => setTimeout(resolve, 200))
      status = ((await (await fetch(`${app.url}/postwire/v1/posts/${id}`, { headers })).json()) as { status: string }).status
    }
    expect(status).toBe("published")
  })
})
