/**
 * `PostwireEngine.make`: the Promise API's checks and errors, test mode, and how subscribers
 * are called.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { Accounts, Workspaces } from "@postwire/core"
import { type EngineEvent, EventFeed, PostwireEngine, PostwireEngineError } from "@postwire/server"
import { Ids as Id } from "@postwire/domain"

const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

describe("PostwireEngine.make", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-engine-"))
  let engine: PostwireEngine.PostwireEngine
  let acme: PostwireEngine.EngineWorkspace
  let profileId: string
  beforeAll(async () => {
    engine = await PostwireEngine.make({ database: "memory", dataDir, locale: "id" })
    acme = engine.workspace((await engine.workspaces.create({ name: "Acme" })).id)
    profileId = (await acme.profiles.create({ name: "Main" })).id
  })
  afterAll(async () => {
    await engine?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const rejection = async (promise: Promise<unknown>): Promise<PostwireEngineError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(PostwireEngineError)
    return error as PostwireEngineError
  }

  it("checks input with the API's schemas and rejects naming every bad field, in the engine's locale", async () => {
    const error = await rejection(
      acme.posts.create({ profile_id: "prof_1", caption: 7, media: "x", targets: [] } as never)
    )
    expect(error.code).toBe("invalid_request")
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["caption", "media", "targets"])
    expect(error.message).toContain("Permintaan tidak valid")
    expect(error.messageId).toContain("Permintaan tidak valid")
    expect(error.retryable).toBe(false)
    expect(error.docs).toBe("http://localhost:8080/docs/errors#invalid_request")
  })

  it("rejects domain failures in the shared shape", async () => {
    const missing = await rejection(acme.posts.get("post_01JD0000000000000000000000"))
    expect(missing.code).toBe("not_found")
    const badLimit = await rejection(acme.posts.list({ limit: 500 }))
    expect(badLimit.field).toBe("limit")
  })

  it("in test mode posts only to sandbox accounts, like a test key", async () => {
    const live = await acme.accounts.create({ profile_id: profileId, platform: "pages", sandbox: false, handle: "acme-live" })
    const media = await acme.media.upload({ data: PIXEL_PNG })
    const asTest = engine.workspace(acme.id, { mode: "test" })
    const error = await rejection(
      asTest.posts.create({ profile_id: profileId, caption: "x", media: [media.id], targets: [{ account_id: live.id }] })
    )
    expect(error.code).toBe("test_key_live_account")
    expect(error.field).toBe("targets[0].account_id")
  })

  it("calls subscribers in order without waiting for them; one that throws harms neither the engine nor the others", async () => {
    const seen: Array<EngineEvent["type"]> = []
    const stopThrowing = engine.events.subscribe(() => {
      throw new Error("subscriber bug")
    })
    const stopSlow = engine.events.subscribe(() => new Promise<void>(() => {}))
    const stop = engine.events.subscribe((event) => {
      seen.push(event.type)
    })
    const account = await acme.accounts.create({ profile_id: profileId, platform: "textpost", sandbox: true })
    const media = await acme.media.upload({ data: PIXEL_PNG })
    const post = await acme.posts.create({ profile_id: profileId, caption: "Hi", media: [media.id], targets: [{ account_id: account.id }] })
    expect(post.status).toBe("awaiting_approval")
    expect(seen).toEqual(["account.connected", "post.awaiting_approval"])

    stop()
    stopThrowing()
    stopSlow()
    await acme.accounts.create({ profile_id: profileId, platform: "photo", sandbox: true })
    expect(seen).toEqual(["account.connected", "post.awaiting_approval"])
  })
})

describe("PostwireEngine.layer", () => {
  it("gives Effect programs the core use-cases, with events on the EventFeed", async () => {
    const seen: Array<string> = []
    const program = Effect.gen(function* () {
      const feed = yield* EventFeed
      feed.subscribe((event) => {
        seen.push(event.type)
      })
      const { id } = yield* Workspaces.createWorkspace({ name: "Effectful" })
      const profile = yield* Workspaces.createProfile(id, { name: "Main" })
      yield* Workspaces.createAccount(id, { profileId: profile.id, platform: "photo", sandbox: true })
      return yield* Accounts.listAccounts({ workspaceId: id, keyId: Id.unchecked("key", "test"), kind: "live" }, {})
    })
    const accounts = await Effect.runPromise(program.pipe(Effect.provide(PostwireEngine.layer({ database: "memory" }))))
    expect(accounts.data.map((account) => account.platform)).toEqual(["photo"])
    expect(seen).toEqual(["account.connected"])
  })
})
