/**
 * The engine facade derived from the contract: endpoints nobody wrote a facade method for
 * (profiles.get and update, comments, the analytics group added later) answer what the API
 * answers, and their input is checked with the endpoint's schemas.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PostwireEngine, PostwireEngineError } from "@postwire/server"

describe("PostwireEngine's facade derived from the contract", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-engine-derived-"))
  let engine: PostwireEngine.PostwireEngine

  beforeAll(async () => {
    engine = await PostwireEngine.make({ database: "memory", dataDir })
  })
  afterAll(async () => {
    await engine?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("offers every endpoint of the API, running the endpoint's own handler", async () => {
    const { id } = await engine.workspaces.create({ name: "Derived" })
    const acme = engine.workspace(id)
    const profile = await acme.profiles.create({ name: "Main" })

    const renamed = await acme.profiles.update(profile.id, { name: "Utama" })
    const fetched = await acme.profiles.get(profile.id)
    const comments = await acme.comments.list()
    const overview = await acme.analytics.overview({ limit: 5 })

    expect(renamed).toMatchObject({ id: profile.id, name: "Utama" })
    expect(fetched).toEqual(renamed)
    expect(comments.data).toEqual([])
    expect(overview.cursor).toMatchObject({ has_more: false })
  })

  it("rejects bad input with the endpoint's schemas, naming the field, and an unknown id with the API's code", async () => {
    const { id } = await engine.workspaces.create({ name: "Checks" })
    const acme = engine.workspace(id)

    const badQuery = await acme.analytics.overview({ limit: 0 }).catch((error: unknown) => error)
    const missing = await acme.profiles.get("prof_01JD0000000000000000000000").catch((error: unknown) => error)

    expect(badQuery).toBeInstanceOf(PostwireEngineError)
    expect(badQuery).toMatchObject({ code: "invalid_request", field: "limit" })
    expect(missing).toBeInstanceOf(PostwireEngineError)
    expect(missing).toMatchObject({ code: "not_found" })
  })
})
