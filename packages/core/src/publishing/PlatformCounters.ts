/**
 * Named counters a platform plugin keeps in the engine's database: a budget the platform gives
 * the whole deployment (YouTube's daily API units per project), counted once for every process
 * that shares the database and kept across restarts.
 *
 * A counter is a `key` (the plugin's own words: an app id, a project) in a `window` (a day, an
 * hour: the plugin names it and says when it ends). {@link PlatformCounters} `add` adds units
 * atomically when the window's total stays within `limit`, and answers `Refused` with the
 * window's end otherwise; `force` adds units already spent (a call that was made). Counters are
 * scoped by platform: two plugins never see each other's keys.
 *
 * Backends: {@link makeMemoryCounters} (in memory: what an engine without a database, or a
 * router run alone, counts in) and `@postwire/store-sql`'s `SqlPlatformCounters` (table
 * `platform_counters`, PostgreSQL and the embedded database).
 *
 * @example
 * ```ts
 * const counters = yield* PlatformCounters
 * const answer = yield* counters.add("video", {
 *   key: "my-project",
 *   window: { id: "2026-12-05", endsAt: Date.parse("2026-12-06T08:00:00Z") },
 *   units: 1600,
 *   limit: 10_000
 * })
 * if (answer._tag === "Refused") console.log(`spent until ${new Date(answer.endsAt).toISOString()}`)
 * ```
 *
 * @since 0.7.0
 */
import { Context, Effect, Layer } from "effect"
import type { StoreError } from "../store/StoreError.ts"

/** A counting window: its name (unique within a key) and when it ends (epoch milliseconds). */
export interface CounterWindow {
  /** The window's name, e.g. the date `2026-12-05`; 1 to 64 characters. */
  readonly id: string
  /** When the window ends (epoch ms): its counter may be deleted some time after. */
  readonly endsAt: number
}

/** Units to add to one counter. */
export interface CounterAdd {
  /** The counter's name within the platform (1 to 200 characters). */
  readonly key: string
  readonly window: CounterWindow
  /** Units to add: a whole number, 0 or more. */
  readonly units: number
  /** The window's most units: an add that would go over it is refused (and adds nothing). */
  readonly limit: number
  /** Adds the units whatever the limit: they were spent already (a call that was made). */
  readonly force?: boolean | undefined
}

/** The answer of an add: the units were added (`Allowed`) or not (`Refused`). */
export interface CounterAnswer {
  readonly _tag: "Allowed" | "Refused"
  /** The window's total after the add (before it, when refused). */
  readonly used: number
  /** When the window ends (epoch ms): a refused add may succeed in the next window. */
  readonly endsAt: number
}

/** The counters of every platform, in the engine's database. */
export class PlatformCounters extends Context.Service<
  PlatformCounters,
  {
    /** Adds units to `platform`'s counter atomically, within the limit unless `force`. */
    readonly add: (platform: string, add: CounterAdd) => Effect.Effect<CounterAnswer, StoreError>
    /** The window's total of `platform`'s counter (0 when nothing was added). */
    readonly read: (platform: string, key: string, window: CounterWindow) => Effect.Effect<number, StoreError>
  }
>()("postwire/PlatformCounters") {}

/** One platform's counters, as its plugin gets them. */
export interface Counters {
  /** Adds units to the counter atomically, within the limit unless `force` (see {@link CounterAdd}). */
  readonly add: (add: CounterAdd) => Effect.Effect<CounterAnswer, StoreError>
  /** The window's total of the counter (0 when nothing was added). */
  readonly read: (key: string, window: CounterWindow) => Effect.Effect<number, StoreError>
}

/** The counters of `platform` alone. */
export const countersOf = (counters: PlatformCounters["Service"], platform: string): Counters => ({
  add: (add) => counters.add(platform, add),
  read: (key, window) => counters.read(platform, key, window)
})

/** A window's counters are dropped this long after it ends. */
export const counterKeepAfterEndMs = 24 * 60 * 60_000

/** The next total of a counter: `used + units` when allowed, else `undefined`. */
export const counterTotal = (used: number, add: Pick<CounterAdd, "units" | "limit" | "force">): number | undefined =>
  add.force === true || used + add.units <= add.limit ? used + add.units : undefined

/** Counters in the process: for an engine without a database, and a router run alone. */
export const makeMemoryCounters = (): PlatformCounters["Service"] => {
  const counters = new Map<string, { used: number; readonly endsAt: number }>()
  const name = (platform: string, key: string, window: string) => `${platform}\u0000${key}\u0000${window}`
  const prune = (now: number) => {
    for (const [k, c] of counters) if (c.endsAt + counterKeepAfterEndMs < now) counters.delete(k)
  }
  return PlatformCounters.of({
    add: (platform, add) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const k = name(platform, add.key, add.window.id)
          const counter = counters.get(k) ?? { used: 0, endsAt: add.window.endsAt }
          const next = counterTotal(counter.used, add)
          if (next === undefined) return { _tag: "Refused", used: counter.used, endsAt: add.window.endsAt } as const
          if (!counters.has(k)) prune(clock.currentTimeMillisUnsafe())
          counter.used = next
          counters.set(k, counter)
          return { _tag: "Allowed", used: next, endsAt: add.window.endsAt } as const
        })
      ),
    read: (platform, key, window) => Effect.sync(() => counters.get(name(platform, key, window.id))?.used ?? 0)
  })
}

/** {@link makeMemoryCounters} as a layer. */
export const layerMemoryCounters: Layer.Layer<PlatformCounters> = Layer.sync(PlatformCounters, makeMemoryCounters)
