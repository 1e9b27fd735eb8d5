import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type App, start } from "./main.ts"

describe("examples/mount-express", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-express-"))
  let app: App
  beforeAll(async () => {
    app = await start({ port: 0, database: "memory", dataDir })
  })
  afterAll(async () => {
    await app?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("answers the Postwire API under /postwire inside the Express app", async () => {
    const key = app.postwire.firstRun!.testKey
    const response = await fetch(`${app.url}/postwire/v1/accounts`, { headers: { authorization: `Bearer ${key}` } })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { data: Array<unknown> }).data).toHaveLength(app.postwire.firstRun!.accounts.length)
    const docs = await fetch(`${app.url}/postwire`, { redirect: "manual" })
    expect(docs.headers.get("location")).toBe("/postwire/docs")
  })

  it("reads its own JSON bodies and names a bad field, while the app's routes keep their body parser", async () => {
    const key = app.postwire.firstRun!.testKey
    const invalid = await fetch(`${app.url}/postwire/v1/posts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ profile_id: app.postwire.firstRun!.profileId, caption: "x", media: ["med_x"], targets: [{ acount_id: "acc_x" }] })
    })
    expect(invalid.status).toBe(400)
    expect(((await invalid.json()) as { error: { field: string } }).error.field).toMatch(/^targets\[0\]/)

    const note = await fetch(`${app.url}/notes`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' })
    expect(await note.json()).toEqual({ saved: { a: 1 } })
    expect(await (await fetch(`${app.url}/`)).text()).toBe("The app's own page\n")
  })

  it("serves an approval page whose form posts back under /postwire", async () => {
    const key = app.postwire.firstRun!.testKey
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const media = (await (
      await fetch(`${app.url}/postwire/v1/media`, {
        method: "POST",
        headers,
        body: JSON.stringify({ data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=" })
      })
    ).json()) as { id: string }
    const account = app.postwire.firstRun!.accounts.find((a) => a.platform === "pages")!
    const created = (await (
      await fetch(`${app.url}/postwire/v1/posts`, {
        method: "POST",
        headers,
        body: JSON.stringify({ profile_id: app.postwire.firstRun!.profileId, caption: "Hi", media: [media.id], targets: [{ account_id: account.id }] })
      })
    ).json()) as { approval: { url: string } }
    expect(created.approval.url.startsWith(`${app.url}/postwire/approve/`)).toBe(true)
    const page = await fetch(created.approval.url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('action="/postwire/approve/')
  })
})
