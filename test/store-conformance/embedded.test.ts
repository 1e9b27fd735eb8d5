import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { Store } from "@postwire/core"
import { PgliteClient, SqlStore } from "@postwire/store-sql"
import { aPost, aWorkspace, anEvent } from "./builders.ts"
import { storeConformance } from "./conformance.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

storeConformance("embedded PGlite", () => SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({ template }))))

describe("embedded PGlite on a data directory", () => {
  it.live(
    "keeps what was written after the database is closed and opened again",
    () =>
      Effect.gen(function* () {
        const dataDir = join(mkdtempSync(join(tmpdir(), "postwire-pglite-")), "db")
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const onDisk = SqlStore.layer.pipe(Layer.provide(PgliteClient.layer({ dataDir })))
        const workspace = aWorkspace()
        const post = aPost(workspace.id)
        const event = anEvent(workspace.id)

        yield* Effect.gen(function* () {
          const store = yield* Store
          yield* store.createWorkspace(workspace)
          yield* store.insertPost(post, [event])
        }).pipe(Effect.provide(onDisk))

        const reopened = yield* Effect.gen(function* () {
          const store = yield* Store
          return {
            workspace: yield* store.getWorkspace(workspace.id),
            post: yield* store.getPost(workspace.id, post.post.id),
            events: yield* store.listEvents(workspace.id)
          }
        }).pipe(Effect.provide(onDisk))

        assert.deepStrictEqual(Option.getOrThrow(reopened.workspace), workspace)
        assert.deepStrictEqual(Option.getOrThrow(reopened.post), post)
        assert.deepStrictEqual(reopened.events, [event])
      }),
    60_000
  )
})
