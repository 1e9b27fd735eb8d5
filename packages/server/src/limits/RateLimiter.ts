/**
 * The rate limiter of one server process: counts each request against its limits in the
 * {@link RateLimitStore}, and takes the hits of a busy bucket from the store in blocks, so that
 * most requests of a busy key are counted in the process, without a statement.
 *
 * A block is at most a sixteenth of what the bucket had left when it was reserved (never more
 * than 256 hits), so:
 *
 * - every hit still has its own number in the shared counter, and a hit is admitted only when
 *   its number is within the limit: the instances sharing a database together never admit more
 *   than the limit in a window;
 * - one instance answers exactly as if it counted each request in the database (its hits are
 *   numbered in the order it hands them out, and `X-RateLimit-Remaining` falls by one per
 *   request);
 * - with several instances, the hits one holds and has not used yet are counted for the others:
 *   one can refuse a request while another still holds a few of the window's last hits. A process
 *   reserves one block of a bucket at a time (the requests that come while it is on its way take
 *   one hit each), so what it holds stays within a sixteenth of what was left. Once fewer than
 *   sixteen are left, every request is counted in the database, so for small limits nothing is
 *   held at all.
 *
 * @since 0.3.0
 */
import { Context, Effect, Layer } from "effect"
import { RateLimitStore, type StoreError } from "@postwire/core"

/** A limit to count a request against: `limit` requests per window in `bucket`. */
export interface Limit {
  readonly bucket: string
  readonly limit: number
}

/** A bucket's block may take at most this share of what it has left... */
const spread = 16
/** ...and never more than this many hits. */
const largestBlock = 256

/** How many hits to reserve for a bucket whose counter stood at `known`. */
export const blockSize = (limit: number, known: number): number =>
  Math.min(largestBlock, Math.max(1, Math.floor((limit - known) / spread)))

/** The hits of one bucket this process reserved in the current window. */
interface Lease {
  /** The highest count the store answered for the bucket in this window. */
  known: number
  /** Reserved hits not yet handed out, as ranges of hit numbers (inclusive), lowest first; all within the limit. */
  readonly free: Array<[number, number]>
}

/** The rate limiter. */
export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    /**
     * Counts one request against each of `limits` in the window starting at `windowStart`
     * (whose counters the store keeps until `expiresAt`) and answers, in the order given, the
     * number of this request's hit in each bucket: over the bucket's limit means refused. A
     * bucket named twice is counted once.
     */
    readonly count: (
      limits: ReadonlyArray<Limit>,
      windowStart: number,
      expiresAt: number
    ) => Effect.Effect<ReadonlyArray<number>, StoreError>
    /**
     * How many hits `bucket` has counted in the window starting at `windowStart`, without
     * counting one: for limits that count only some requests (failed admin tokens) but refuse
     * every request once spent.
     */
    readonly peek: (bucket: string, windowStart: number, expiresAt: number) => Effect.Effect<number, StoreError>
  }
>()("postwire/server/RateLimiter") {}

/** A rate limiter over `store`, with its own blocks (one per process). */
export const make = (store: RateLimitStore["Service"]): RateLimiter["Service"] => {
  // The window's blocks, and the buckets whose block is being reserved right now.
  let window = { start: Number.NEGATIVE_INFINITY, leases: new Map<string, Lease>(), reserving: new Set<string>() }

  return RateLimiter.of({
    // Zero hits add nothing and answer the counter; the store holds every instance's hits.
    peek: (bucket, windowStart, expiresAt) =>
      Effect.map(store.hit([{ bucket, windowStart, expiresAt, hits: 0 }]), (counts) => counts[0]!),
    count: (limits, windowStart, expiresAt) =>
      Effect.suspend(() => {
        // A new window starts with no blocks; a request still counting an older one goes to the store.
        if (windowStart > window.start) window = { start: windowStart, leases: new Map(), reserving: new Set() }
        const leases = windowStart === window.start ? window.leases : undefined
        const reserving = window.reserving
        // Blocks this call reserves: while one is on its way, the bucket's other requests take one hit each.
        const blocks: Array<string> = []
        const numbers = new Map<string, number>()
        const reserve: Array<{ readonly bucket: string; readonly limit: number; readonly hits: number }> = []
        for (const { bucket, limit } of limits) {
          if (numbers.has(bucket) || reserve.some((r) => r.bucket === bucket)) continue
          const lease = leases?.get(bucket)
          const range = lease?.free[0]
          if (range !== undefined) {
            numbers.set(bucket, range[0])
            if (range[0] === range[1]) lease!.free.shift()
            else range[0]++
          } else if (lease !== undefined && lease.known >= limit) {
            // The window is spent: the counter never falls within it.
            numbers.set(bucket, lease.known + 1)
          } else if (leases === undefined || reserving.has(bucket)) {
            reserve.push({ bucket, limit, hits: 1 })
          } else {
            blocks.push(bucket)
            reserving.add(bucket)
            reserve.push({ bucket, limit, hits: blockSize(limit, lease?.known ?? 0) })
          }
        }
        const answer = () => limits.map(({ bucket }) => numbers.get(bucket)!)
        if (reserve.length === 0) return Effect.succeed(answer())
        return Effect.map(
          store.hit(reserve.map(({ bucket, hits }) => ({ bucket, windowStart, expiresAt, hits }))),
          (counts) => {
            reserve.forEach(({ bucket, hits, limit }, i) => {
              const count = counts[i]!
              const first = count - hits + 1
              numbers.set(bucket, first)
              if (leases === undefined || leases !== window.leases) return
              const lease = leases.get(bucket) ?? { known: count, free: [] }
              leases.set(bucket, lease)
              lease.known = Math.max(lease.known, count)
              // This request takes the block's first hit; the rest within the limit are kept.
              const last = Math.min(count, limit)
              if (last > first) {
                lease.free.push([first + 1, last])
                lease.free.sort((a, b) => a[0] - b[0])
              }
            })
            return answer()
          }
        ).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              for (const bucket of blocks) reserving.delete(bucket)
            })
          )
        )
      })
  })
}

/** The process's rate limiter over the `RateLimitStore`. */
export const layer: Layer.Layer<RateLimiter, never, RateLimitStore> = Layer.effect(RateLimiter)(
  Effect.gen(function* () {
    return make(yield* RateLimitStore)
  })
)
