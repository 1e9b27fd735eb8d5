/**
 * What the platforms' analytics adapters do the same way: group the targets by the platform's
 * item id, read the ids in batches of the platform's size, turn each item answered into a
 * reading, and count as `gone` the ids the platform no longer answers for.
 *
 * @internal
 */
import type { MetricValues, PostMetricName, PostReading, PostsCollection, RawMetrics, TargetRecord } from "@postwire/core"
import { Effect } from "effect"
import { platformPostIdOf } from "../comments/CommentAdapter.ts"
import { field } from "./Wire.ts"

/** Maps each platform item id to the targets that published it (a target without one is skipped). */
export const itemsOf = (
  targets: ReadonlyArray<TargetRecord>,
  idOf: (target: TargetRecord) => string | null = platformPostIdOf
): Map<string, Array<TargetRecord["id"]>> => {
  const out = new Map<string, Array<TargetRecord["id"]>>()
  for (const target of targets) {
    const id = idOf(target)
    if (id !== null) out.set(id, [...(out.get(id) ?? []), target.id])
  }
  return out
}

/** The numbers among an answer's fields, by name. */
export const numbersOf = (body: unknown, names: ReadonlyArray<string>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const name of names) {
    const value = field(body, name)
    if (typeof value === "number") out[name] = value
  }
  return out
}

/** Normalized values from raw ones: each normalized name from its platform name, when a number. */
export const renamed = <N extends string>(raw: RawMetrics, names: Readonly<Record<N, string>>): MetricValues<N> => {
  const out: Partial<Record<N, number>> = {}
  for (const name in names) {
    const value = raw[names[name]]
    if (typeof value === "number") out[name] = value
  }
  return out as MetricValues<N>
}

/** What one batch read answers: the items found by id, and the calls it made. */
export interface BatchRead {
  readonly items: ReadonlyMap<string, unknown>
  readonly calls: number
}

/**
 * Reads the targets' items `batchSize` ids at a time with `read`; an id the answer leaves out is
 * `gone` (the platform no longer has it), the others become readings with `reading`.
 */
export const readInBatches = <E>(options: {
  readonly targets: ReadonlyArray<TargetRecord>
  readonly batchSize: number
  readonly idOf?: ((target: TargetRecord) => string | null) | undefined
  readonly read: (ids: ReadonlyArray<string>) => Effect.Effect<BatchRead, E>
  readonly reading: (item: unknown) => { readonly metrics: MetricValues<PostMetricName>; readonly raw: RawMetrics }
}): Effect.Effect<Omit<PostsCollection, "credentials">, E> =>
  Effect.gen(function* () {
    const targetOf = itemsOf(options.targets, options.idOf)
    const ids = [...targetOf.keys()]
    const readings: Array<PostReading> = []
    const gone: Array<PostReading["targetId"]> = []
    let calls = 0
    for (let i = 0; i < ids.length; i += options.batchSize) {
      const wanted = ids.slice(i, i + options.batchSize)
      const read = yield* options.read(wanted)
      calls += read.calls
      for (const id of wanted) {
        const item = read.items.get(id)
        if (item === undefined) {
          gone.push(...targetOf.get(id)!)
          continue
        }
        const { metrics, raw } = options.reading(item)
        for (const targetId of targetOf.get(id)!) readings.push({ targetId, metrics, raw })
      }
    }
    return { readings, gone, calls }
  })

/** Items of a list answer keyed by their id (`idOf`), for {@link BatchRead}. */
export const byId = (list: unknown, idOf: (item: unknown) => string | undefined): Map<string, unknown> => {
  const out = new Map<string, unknown>()
  for (const item of Array.isArray(list) ? list : []) {
    const id = idOf(item)
    if (id !== undefined) out.set(id, item)
  }
  return out
}
