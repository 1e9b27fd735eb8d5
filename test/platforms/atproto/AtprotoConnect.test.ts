/**
 * Connecting a Bluesky account against the fake PDS: handle (or DID) and app password make a
 * session whose tokens are sealed (never the password), refresh rotates the session, disconnect
 * deletes it, and the PDS's refusals become connect failures.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as AtprotoConnect from "../../../packages/platforms/src/atproto/AtprotoConnect.ts"
import type * as Xrpc from "../../../packages/platforms/src/atproto/Xrpc.ts"
import * as Wire from "../../../packages/platforms/src/internal/Wire.ts"
import * as PdsFake from "./PdsFake.ts"

const connector = (fake: PdsFake.PdsFake) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const wire = Wire.make(client, { timeoutMs: 5_000, retry: { attempts: 2, baseDelayMs: 1 } })
    return AtprotoConnect.make({ ...AtprotoConnect.defaults, serviceUrl: fake.url }, wire)
  }).pipe(Effect.provide(FetchHttpClient.layer))

describe("Bluesky connect", () => {
  it.live("a handle and an app password give one identity whose sealed credentials are the session, not the password", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const connect = yield* connector(fake)
      const [identity, ...rest] = yield* connect.login({ identifier: "@maya.bsky.social", password: fake.appPassword })
      assert.lengthOf(rest, 0)
      assert.strictEqual(identity!.platform, "atproto")
      assert.strictEqual(identity!.platformAccountId, fake.did)
      assert.strictEqual(identity!.handle, fake.handle)
      assert.strictEqual(identity!.grantId, fake.did)
      assert.notInclude(identity!.credentials, fake.appPassword)
      const sealed = JSON.parse(identity!.credentials) as Xrpc.AtprotoCredentials
      assert.deepStrictEqual(Object.keys(sealed).sort(), ["access_jwt", "did", "handle", "refresh_jwt", "service"])
      assert.strictEqual(sealed.service, fake.url)
      assert.isTrue(fake.refresh.has(sealed.refresh_jwt))
      assert.isAbove(identity!.accessTokenExpiresAt ?? 0, Date.now())
      assert.isAbove(identity!.refreshTokenExpiresAt ?? 0, identity!.accessTokenExpiresAt ?? 0)
      const byDid = yield* connect.login({ identifier: fake.did, password: fake.appPassword })
      assert.strictEqual(byDid[0]!.handle, fake.handle)
    })
  )

  it.live("a wrong password or an empty field is a connect failure naming the PDS's error", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const connect = yield* connector(fake)
      const wrong = yield* Effect.result(connect.login({ identifier: fake.handle, password: "wrong-pass-word-xxxx" }))
      assert.isTrue(Result.isFailure(wrong))
      if (Result.isFailure(wrong)) {
        assert.strictEqual(wrong.failure.code, "connect_failed")
        assert.strictEqual(wrong.failure.platformCode, "AuthenticationRequired")
      }
      const empty = yield* Effect.result(connect.login({ identifier: "", password: "x" }))
      assert.strictEqual(Result.isFailure(empty) ? empty.failure.platformCode : undefined, "identifier_missing")
      fake.rateLimited = { remaining: 0, resetAt: 0 }
    })
  )

  it.live("refresh rotates the session; a revoked refresh token asks for a reconnect", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const connect = yield* connector(fake)
      const [identity] = yield* connect.login({ identifier: fake.handle, password: fake.appPassword })
      const refreshed = yield* connect.refresh(identity!.credentials)
      assert.strictEqual(refreshed._tag, "Refreshed")
      const next = refreshed._tag === "Refreshed" ? (JSON.parse(refreshed.credentials) as Xrpc.AtprotoCredentials) : undefined
      const before = JSON.parse(identity!.credentials) as Xrpc.AtprotoCredentials
      assert.notStrictEqual(next!.refresh_jwt, before.refresh_jwt)
      assert.isFalse(fake.refresh.has(before.refresh_jwt))
      const stale = yield* Effect.result(connect.refresh(identity!.credentials))
      assert.isTrue(Result.isFailure(stale))
      if (Result.isFailure(stale)) {
        assert.strictEqual(stale.failure.code, "token_expired")
        assert.isTrue(stale.failure.needsReconnect)
      }
    })
  )

  it.live("disconnect deletes the session on the PDS", () =>
    Effect.gen(function* () {
      const fake = yield* PdsFake.make()
      const connect = yield* connector(fake)
      const [identity] = yield* connect.login({ identifier: fake.handle, password: fake.appPassword })
      const sealed = JSON.parse(identity!.credentials) as Xrpc.AtprotoCredentials
      assert.strictEqual((yield* connect.revoke(identity!.credentials))._tag, "Revoked")
      assert.isFalse(fake.refresh.has(sealed.refresh_jwt))
      assert.strictEqual(fake.count("deleteSession"), 1)
      // Already gone: still revoked.
      assert.strictEqual((yield* connect.revoke(identity!.credentials))._tag, "Revoked")
    })
  )
})
