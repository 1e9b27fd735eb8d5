/**
 * Tokens kept alive, on the engine with the in-memory stores and the real sandbox connector,
 * driven by `TestClock`: refreshed halfway through their lifetime, and a refused refresh marks
 * the account `needs_reconnect` with one `account.needs_reconnect`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  Accounts,
  Connect,
  ConnectStore,
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  MemoryConnectStore,
  MemoryStore,
  SandboxConsent,
  Store,
  TokenRenewal,
  Workspaces
} from "@postwire/core"
import type { Platform } from "@postwire/domain"
import { ConnectRouter, Registry } from "@postwire/platforms"
import { bucThrottle } from "../platforms/meta/GraphFake.ts"
import * as InstagramOAuthFake from "../platforms/instagram/InstagramOAuthFake.ts"
import * as TikTokOAuthFake from "../platforms/tiktok/TikTokOAuthFake.ts"
import { Ids as Id } from "@postwire/domain"

const publicUrl = "https://postwire.example.com"
const secret = "a-test-server-secret-of-enough-length-0123456789"
const hour = 3_600_000
const day = 24 * hour

const settings = TokenRenewal.defaults("renewal-test")

const engineWith = (connect: Omit<ConnectRouter.Options, "publicUrl" | "sandboxSecret"> = {}) =>
  Layer.mergeAll(
    MemoryConnectStore.layer,
    Layer.succeed(CredentialsCipher)(CredentialsCipher.make(secret)),
    EngineConfig.layer(defaultSettings(publicUrl, secret, Registry.catalog())),
    Ids.layerTest,
    ConnectRouter.layer({ publicUrl, sandboxSecret: secret, ...connect })
  ).pipe(Layer.provideMerge(MemoryStore.layer))

const Engine = engineWith()

/** Connects a sandbox account of `platform` through the link, as the person's browser would. */
const aConnectedAccount = (platform: Platform, handle: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspaces.createWorkspace({ name: "renewals" })
    const profile = yield* Workspaces.createProfile(workspace.id, { name: "Brand" })
    const caller = { workspaceId: workspace.id, keyId: Id.unchecked("key", "key_test"), kind: "test" as const }
    const link = yield* Connect.createConnectLink(caller, { profile_id: profile.id as never, platform })
    const token = link.url.split("/").pop()!
    const begun = yield* Connect.beginAuthorization(token)
    assert.strictEqual(begun._tag, "Redirect")
    const query = new URL((begun as { url: string }).url).searchParams
    const code = SandboxConsent.issue({
      secret,
      now: yield* Clock.currentTimeMillis,
      platform,
      redirectUri: query.get("redirect_uri")!,
      codeChallenge: query.get("code_challenge")!,
      accounts: [{ handle }]
    })
    const outcome = yield* Connect.completeCallback(platform, { code, state: query.get("state")! })
    assert.strictEqual(outcome._tag, "Connected")
    const account = (outcome as { accounts: ReadonlyArray<{ id: string }> }).accounts[0]!
    return { workspaceId: workspace.id, accountId: account.id, caller }
  })

const connectionOf = (workspaceId: string, accountId: string) =>
  ConnectStore.use((store) => store.getConnection(Id.unchecked("workspace", workspaceId), Id.unchecked("account", accountId))).pipe(Effect.map(Option.getOrThrow))

const eventsOf = (workspaceId: string, type: string) =>
  Store.use((store) => store.listEvents(Id.unchecked("workspace", workspaceId))).pipe(
    Effect.map((events) => events.filter((e) => e.type === type))
  )

/** A platform's renewal policy, as its plugin declares it. */
const renewal = (platform: string) => Registry.make().get(platform)?.tokenRenewal

describe("TokenRenewal", () => {
  it("schedules halfway through the lifetime, never before 24 hours for Meta tokens", () => {
    assert.strictEqual(TokenRenewal.nextRefreshAt(renewal("shortvideo"), 0, 24 * hour), 12 * hour)
    assert.strictEqual(TokenRenewal.nextRefreshAt(renewal("shortvideo"), 0, 2 * hour), hour)
    assert.strictEqual(TokenRenewal.nextRefreshAt(renewal("photo"), 0, 60 * day), 30 * day)
    assert.strictEqual(TokenRenewal.nextRefreshAt(renewal("textpost"), 0, 2 * hour), 24 * hour)
    assert.strictEqual(TokenRenewal.nextRefreshAt(renewal("pages"), 0, null), null)
  })

  it("backs off transient failures: 1 minute, 5 minutes, 30 minutes, then every 2 hours", () => {
    assert.deepStrictEqual([1, 2, 3, 4, 9].map(TokenRenewal.retryDelayMs), [60_000, 300_000, 1_800_000, 2 * hour, 2 * hour])
  })

  it.effect("refreshes a TikTok token before it expires, again and again, so the account never lapses", () =>
    Effect.gen(function* () {
      const { accountId, caller, workspaceId } = yield* aConnectedAccount("shortvideo", "daily_creator")
      const first = yield* connectionOf(workspaceId, accountId)
      const store = yield* Store
      const sealedBefore = Option.getOrThrow(yield* store.getAccount(workspaceId, Id.unchecked("account", accountId))).credentials
      assert.strictEqual(first.refreshAt, first.connectedAt + 12 * hour)

      yield* TestClock.adjust(12 * hour - 1)
      assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), [])

      for (let round = 1; round <= 40; round++) {
        yield* TestClock.adjust(12 * hour)
        assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["refreshed"])
      }
      const now = yield* Clock.currentTimeMillis
      const renewed = yield* connectionOf(workspaceId, accountId)
      assert.isTrue(renewed.tokenExpiresAt! > now)
      assert.strictEqual(renewed.refreshAt, now + 12 * hour)
      const account = yield* Accounts.getAccount(caller, Id.unchecked("account", accountId))
      assert.strictEqual(account.status, "connected")
      assert.strictEqual(account.token_expires_at, new Date(renewed.tokenExpiresAt!).toISOString())
      assert.notStrictEqual(Option.getOrThrow(yield* store.getAccount(workspaceId, Id.unchecked("account", accountId))).credentials, sealedBefore)
      assert.deepStrictEqual(yield* eventsOf(workspaceId, "account.needs_reconnect"), [])
    }).pipe(Effect.provide(Engine))
  )

  it.effect("refreshes an Instagram long-lived token after 30 days, not before", () =>
    Effect.gen(function* () {
      const { accountId, workspaceId } = yield* aConnectedAccount("photo", "monthly_brand")
      const before = yield* connectionOf(workspaceId, accountId)

      yield* TestClock.adjust(29 * day)
      assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), [])
      yield* TestClock.adjust(day)
      assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["refreshed"])
      const after = yield* connectionOf(workspaceId, accountId)
      assert.strictEqual(after.tokenExpiresAt, before.tokenExpiresAt! + 30 * day)
    }).pipe(Effect.provide(Engine))
  )

  it.effect("marks the account needs_reconnect once when the platform refuses the refresh", () =>
    Effect.gen(function* () {
      const { accountId, caller, workspaceId } = yield* aConnectedAccount("textpost", "lapsed_voice")

      // Nobody refreshed for 61 days (the workers were down): the token is past its lifetime.
      yield* TestClock.adjust(61 * day)
      assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["needs_reconnect"])

      const account = yield* Accounts.getAccount(caller, Id.unchecked("account", accountId))
      assert.strictEqual(account.status, "needs_reconnect")
      assert.strictEqual(account.reconnect?.reason.code, "token_expired")
      assert.strictEqual(account.reconnect?.endpoint, `/v1/accounts/${accountId}/reconnect`)
      const events = yield* eventsOf(workspaceId, "account.needs_reconnect")
      assert.strictEqual(events.length, 1)
      assert.deepStrictEqual(events[0]!.data, {
        account_id: accountId,
        profile_id: account.profile_id,
        platform: "textpost",
        handle: "lapsed_voice",
        reason: "token_expired"
      })

      yield* TestClock.adjust(30 * day)
      assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), [])
      assert.strictEqual((yield* eventsOf(workspaceId, "account.needs_reconnect")).length, 1)
    }).pipe(Effect.provide(Engine))
  )

  // https://developers.facebook.com/docs/graph-api/overview/rate-limiting#buc-rate-limits
  it.effect("waits out an Instagram Business Use Case throttle (80002) on refresh until the header's time, the account kept connected", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* InstagramOAuthFake.scoped()
        fake.redirectUris.push(`${publicUrl}/connect/callback/photo`)
        const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
          effect.pipe(
            Effect.provide(
              engineWith({
                photo: {
                  appId: fake.appId,
                  appSecret: fake.appSecret,
                  authorizeUrl: `${fake.url}/oauth/authorize`,
                  tokenUrl: `${fake.url}/oauth/access_token`,
                  exchangeUrl: `${fake.url}/access_token`,
                  refreshUrl: `${fake.url}/refresh_access_token`,
                  graphUrl: `${fake.url}/v23.0`
                }
              })
            )
          ) as Effect.Effect<A, E>
        yield* run(
          Effect.gen(function* () {
            const workspace = yield* Workspaces.createWorkspace({ name: "instagram" })
            const profile = yield* Workspaces.createProfile(workspace.id, { name: "Bakery" })
            const caller = { workspaceId: workspace.id, keyId: Id.unchecked("key", "key_live"), kind: "live" as const }
            const link = yield* Connect.createConnectLink(caller, { profile_id: profile.id as never, platform: "photo" })
            const begun = yield* Connect.beginAuthorization(link.url.split("/").pop()!)
            const callback = new URL(yield* Effect.promise(() => fake.approve((begun as { url: string }).url)))
            const outcome = yield* Connect.completeCallback("photo", {
              code: callback.searchParams.get("code")!,
              state: callback.searchParams.get("state")!
            })
            assert.strictEqual(outcome._tag, "Connected")
            const accountId = (outcome as { accounts: ReadonlyArray<{ id: string }> }).accounts[0]!.id
            const connected = yield* connectionOf(workspace.id, accountId)
            yield* TestClock.adjust(connected.refreshAt! - (yield* Clock.currentTimeMillis))
            fake.advance(connected.refreshAt! - connected.connectedAt)
            fake.faults.inject("refresh", bucThrottle(80002, { minutes: 45 }))
            assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["deferred"])
            const throttledAt = yield* Clock.currentTimeMillis
            const deferred = yield* connectionOf(workspace.id, accountId)
            // Not the first backoff step (1 minute): the 45 minutes the header gives.
            assert.strictEqual(deferred.refreshAt, throttledAt + 45 * 60_000)
            yield* TestClock.adjust(45 * 60_000 - 1)
            assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), [])
            assert.strictEqual(fake.count("refresh"), 1)
            yield* TestClock.adjust(1)
            assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["refreshed"])
            const account = yield* Accounts.getAccount(caller, Id.unchecked("account", accountId))
            assert.strictEqual(account.status, "connected")
            assert.deepStrictEqual(yield* eventsOf(workspace.id, "account.needs_reconnect"), [])
          })
        )
      })
    )
  )

  it.effect("refreshes a real TikTok token at the fake ahead of expiry, and marks the account once when the fake refuses", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* TikTokOAuthFake.scoped()
        fake.redirectUris.push(`${publicUrl}/connect/callback/shortvideo`)
        const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
          effect.pipe(
            Effect.provide(
              engineWith({
                shortvideo: {
                  clientKey: fake.clientKey,
                  clientSecret: fake.clientSecret,
                  authorizeUrl: `${fake.url}/v2/auth/authorize/`,
                  apiUrl: fake.url
                }
              })
            )
          ) as Effect.Effect<A, E>
        yield* run(
          Effect.gen(function* () {
            const workspace = yield* Workspaces.createWorkspace({ name: "tiktok" })
            const profile = yield* Workspaces.createProfile(workspace.id, { name: "Creator" })
            const caller = { workspaceId: workspace.id, keyId: Id.unchecked("key", "key_live"), kind: "live" as const }
            const link = yield* Connect.createConnectLink(caller, { profile_id: profile.id as never, platform: "shortvideo" })
            const begun = yield* Connect.beginAuthorization(link.url.split("/").pop()!)
            const callback = new URL(yield* Effect.promise(() => fake.approve((begun as { url: string }).url)))
            const outcome = yield* Connect.completeCallback("shortvideo", {
              code: callback.searchParams.get("code")!,
              state: callback.searchParams.get("state")!
            })
            assert.strictEqual(outcome._tag, "Connected")
            const accountId = (outcome as { accounts: ReadonlyArray<{ id: string }> }).accounts[0]!.id
            const connected = yield* connectionOf(workspace.id, accountId)
            assert.strictEqual(connected.refreshAt! - connected.connectedAt, (fake.accessLifetimeSec * 1000) / 2)

            const refreshes = () => fake.count("token:refresh_token")
            // The creator made the account private since connecting: the refresh reads that too.
            fake.creator.privacy_level_options = ["FOLLOWER_OF_CREATOR", "SELF_ONLY"]
            fake.creator.max_video_post_duration_sec = 600
            yield* TestClock.adjust((fake.accessLifetimeSec * 1000) / 2)
            assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["refreshed"])
            const detail = yield* Accounts.getAccount(caller, Id.unchecked("account", accountId))
            assert.deepStrictEqual(detail.privacy_level_options, ["FOLLOWER_OF_CREATOR", "SELF_ONLY"])
            assert.strictEqual(detail.max_video_post_duration_sec, 600)
            assert.strictEqual(refreshes(), 1)
            const renewed = yield* connectionOf(workspace.id, accountId)
            assert.strictEqual(renewed.tokenExpiresAt, (yield* Clock.currentTimeMillis) + fake.accessLifetimeSec * 1000)

            // The person's refresh token lapses at TikTok (180 days unused): the next refresh is refused.
            fake.advance((fake.refreshLifetimeSec + 60) * 1000)
            yield* TestClock.adjust(fake.accessLifetimeSec * 1000)
            assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), ["needs_reconnect"])
            const account = yield* Accounts.getAccount(caller, Id.unchecked("account", accountId))
            assert.strictEqual(account.status, "needs_reconnect")
            assert.strictEqual(account.reconnect?.reason.platform_code, "invalid_grant")
            yield* TestClock.adjust(30 * day)
            assert.deepStrictEqual(yield* TokenRenewal.refreshDueTokens(settings), [])
            assert.strictEqual((yield* eventsOf(workspace.id, "account.needs_reconnect")).length, 1)
          })
        )
      })
    )
  )
})
