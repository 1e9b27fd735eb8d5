/**
 * The one reading of each row (`store-sql/src/internal/Rows.ts`): whatever the driver hands
 * back for a column (a number, a `bigint` or its text; `jsonb` parsed or as text), the record is
 * the same; a row that does not decode is a `StoreError` naming the operation, never a defect,
 * and its message names columns, never their values (a row may hold credentials).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Store, StoreError } from "@postwire/core"
import { PgliteClient, SqlStore } from "@postwire/store-sql"
import {
  accountFromRow,
  mediaFromRow,
  postFromRow,
  RowDecodeError,
  targetFromRow
} from "../../packages/store-sql/src/internal/Rows.ts"
import { aPost, aProfile, aWorkspace, anAccount, t0 } from "./builders.ts"
import { anEmbeddedTemplate } from "../support/TestServer.ts"

/** Each embedded database here starts as a copy of a new one (no `initdb` of its own). */
const template = await anEmbeddedTemplate()

const postRow = {
  workspace_id: "ws_1",
  id: "post_1",
  profile_id: "prof_1",
  caption: "Hello",
  media: ["med_1", "med_2"],
  scheduled_at: null,
  ai_generated: false,
  approval_mode: "none",
  notify: { email: "a@example.com", locale: "en" },
  status: "queued",
  publish_at: t0,
  created_at: t0,
  updated_at: t0,
  version: 1
}

const targetRow = {
  workspace_id: "ws_1",
  id: "tgt_1",
  post_id: "post_1",
  account_id: "acct_1",
  platform: "photo",
  status: "queued",
  options: { photo: { type: "feed" } },
  consent: null,
  permalink: null,
  published_at: null,
  error: { code: "platform_unavailable", message: "x" },
  attempts: 2,
  platform_state: "container-17",
  due_at: t0,
  lease_owner: null,
  lease_until: null,
  updated_at: t0
}

/**
 * The same row as another driver hands it back: numbers as `bigint` or text, `jsonb` objects and
 * lists as text (a bare JSON string, such as a platform state, arrives as that string from all).
 */
const asOtherDriver = (row: Record<string, unknown>, numbers: "bigint" | "text") =>
  Object.fromEntries(
    Object.entries(row).map(([name, value]) => {
      if (typeof value === "number") return [name, numbers === "bigint" ? BigInt(value) : String(value)]
      if (value !== null && typeof value === "object") return [name, JSON.stringify(value)]
      return [name, value]
    })
  )

describe("row decoders", () => {
  it("read a post and a target the same from every driver", () => {
    for (const numbers of ["bigint", "text"] as const) {
      assert.deepStrictEqual(postFromRow(asOtherDriver(postRow, numbers)), postFromRow(postRow))
      assert.deepStrictEqual(targetFromRow(asOtherDriver(targetRow, numbers)), targetFromRow(targetRow))
    }
    const post = postFromRow(postRow)
    assert.deepStrictEqual<ReadonlyArray<string>>(post.media, ["med_1", "med_2"])
    assert.strictEqual(post.publishAt, t0)
    // A state that is a bare JSON string stays that string.
    assert.strictEqual(targetFromRow(targetRow).platformState, "container-17")
  })

  it("read a media row from before the lifecycle as ready, updated when created", () => {
    const media = mediaFromRow({
      workspace_id: "ws_1",
      id: "med_1",
      kind: "image",
      mime: "image/jpeg",
      size_bytes: "123456",
      filename: null,
      width: 1080,
      height: 1350,
      duration_seconds: null,
      blob_key: "blob_1",
      sha256: "abc",
      created_at: BigInt(t0),
      status: null,
      error: null,
      codec: null,
      source_url: null,
      updated_at: null
    })
    assert.strictEqual(media.status, "ready")
    assert.strictEqual(media.updatedAt, t0)
    assert.strictEqual(media.sizeBytes, 123_456)
  })

  it("refuse every wrongly typed column of a post or a target, and name it", () => {
    // The readers check each column with plain tests (the schemas only name what is wrong):
    // each of these values breaks its column's type, and each must be refused, by name.
    const wrong: Record<string, ReadonlyArray<unknown>> = {
      workspace_id: [1, null, {}],
      caption: [undefined, 7, true],
      media: [{ not: "a list" }, [1, 2], "not json", "{\"a\":1}"],
      scheduled_at: ["soon", {}, Number.POSITIVE_INFINITY],
      ai_generated: ["false", 0],
      notify: [[1], "x", 5],
      publish_at: [undefined, null, "tomorrow", Number.NaN, {}],
      version: ["v1"],
      // Any registered plugin's word is a platform ("myspace" may be one); a value outside the
      // words' form (lowercase letters, digits, `_`) never is.
      platform: ["My Space!", "", 3],
      options: [null, "x", [1]],
      attempts: [null, "two"],
      lease_owner: [5],
      error: ["oops", 12]
    }
    let refused = 0
    for (const [column, values] of Object.entries(wrong)) {
      const [decode, row] =
        column in targetRow ? ([targetFromRow, targetRow] as const) : ([postFromRow, postRow] as const)
      for (const value of values) {
        const error = (() => {
          try {
            decode({ ...row, [column]: value })
            return undefined
          } catch (e) {
            return e
          }
        })()
        assert.instanceOf(error, RowDecodeError, `${column} = ${String(value)} must be refused`)
        assert.include((error as RowDecodeError).message, column)
        refused++
      }
    }
    assert.isAbove(refused, 30)
  })

  it("refuse a row that does not match, naming the columns but never their values", () => {
    const secret = "sealed-credentials-of-the-account"
    const error = (() => {
      try {
        accountFromRow({
          workspace_id: "ws_1",
          id: "acct_1",
          profile_id: "prof_1",
          platform: "My Space!",
          handle: "acme",
          sandbox: true,
          status: "connected",
          daily_quota: "not a number",
          simulate: null,
          credentials: secret,
          external_id: null,
          created_at: t0
        })
        return undefined
      } catch (e) {
        return e
      }
    })()
    assert.instanceOf(error, RowDecodeError)
    const message = (error as RowDecodeError).message
    assert.include(message, "accounts")
    assert.include(message, "platform")
    assert.include(message, "daily_quota")
    assert.notInclude(message, secret)
    assert.notInclude(message, "My Space!")
  })
})

layer(SqlStore.layer.pipe(Layer.provideMerge(PgliteClient.layer({ template }))), {
  timeout: 60_000
})("a stored row that does not decode, on embedded PGlite", (it) => {
  it.effect("is a StoreError naming the operation, whether one post is read or a page of them", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const sql = yield* SqlClient.SqlClient
      const workspace = aWorkspace()
      yield* store.createWorkspace(workspace)
      const profile = aProfile(workspace.id)
      yield* store.createProfile(profile)
      const account = anAccount(workspace.id, profile.id, { platform: "photo" })
      yield* store.createAccount(account)
      const aggregate = aPost(workspace.id, { profileId: profile.id })
      yield* store.insertPost(aggregate, [])
      // `media` must hold a list of media ids: an object there is a row no reader can trust.
      yield* sql`UPDATE posts SET media = ${JSON.stringify({ not: "a list" })}::jsonb
        WHERE workspace_id = ${workspace.id} AND id = ${aggregate.post.id}`

      // A failure in the error channel (a defect would fail this test instead).
      const read = yield* Effect.flip(store.getPost(workspace.id, aggregate.post.id))
      assert.instanceOf(read, StoreError)
      assert.strictEqual(read.operation, "getPost")
      assert.instanceOf(read.cause, RowDecodeError)
      assert.notInclude(String((read.cause as RowDecodeError).message), "a list")
      assert.include(String((read.cause as RowDecodeError).message), "media")

      const listed = yield* Effect.flip(store.listPosts(workspace.id, {}, undefined, 25))
      assert.strictEqual(listed.operation, "listPosts")

    }))
})
