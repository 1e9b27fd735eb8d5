/**
 * What the analytics adapter tests share: a platform's adapter built through its plugin
 * (`publish.analytics`, over the settings a server would give it: tiny retry delays, the fake's
 * host), and readings that record how many requests the fake received while they ran.
 */
import type { AccountRecord, AnalyticsCapabilities, TargetRecord } from "@postwire/core"
import { type Plugin, PlatformRouter, Registry } from "@postwire/platforms"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { aTarget } from "./builders.ts"
import type { FakeServer } from "./fakes/FakeServer.ts"

/** A platform's analytics adapter and capabilities, through its plugin. */
export const anAnalyticsAdapter = (platform: string, options: PlatformRouter.Options = {}) =>
  Effect.gen(function* () {
    const plugin = Registry.make(options.plugins).get(platform)
    if (plugin?.publish.analytics === undefined || plugin.analytics === undefined) {
      return yield* Effect.die(new Error(`${platform} has no analytics`))
    }
    const all: PlatformRouter.Options = { retry: { attempts: 3, baseDelayMs: 1 }, requestTimeoutMs: 5_000, ...options }
    const wire = yield* PlatformRouter.makeWire(all)
    const adapter: Plugin.AnalyticsAdapter = plugin.publish.analytics(PlatformRouter.settingsOf(plugin, all), wire)
    const capabilities: AnalyticsCapabilities = plugin.analytics
    return { adapter, capabilities }
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** A published target whose item is `platformPostId`. */
export const aPublishedItem = (account: AccountRecord, platformPostId: string): TargetRecord =>
  aTarget(account, { status: "published", platformPostId, publishedAt: Date.now() - 3_600_000 })

/** Runs `effect` and tells how many requests the fake received meanwhile. */
export const counted = <A, E, R>(fake: FakeServer, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = fake.requests.length
    const result = yield* effect
    return { result, requests: fake.requests.length - before }
  })

/** `YYYY-MM-DD` of a time, `days` later. */
export const dayAt = (millis: number, days = 0): string => new Date(millis + days * 86_400_000).toISOString().slice(0, 10)
