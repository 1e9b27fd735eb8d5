/**
 * The API keys an instance has looked up recently, so that a request costs no key lookup.
 *
 * Keys never change once issued but for their revocation: a key revoked through this instance's
 * admin API is forgotten at once (refused from the next request on); one revoked through another
 * instance or `postwire admin key revoke` (which write only the database) is refused within
 * {@link keyCacheMs} (a second), when this instance asks the database again. A busy key costs one
 * indexed lookup a second per instance, which is what "revoked everywhere within a second"
 * costs without a notification channel every database has.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import { type ApiKeyRecord, Store } from "@postwire/core"

/** How long a key looked up in the store is trusted without asking again: how late another instance's revocation may be seen. */
export const keyCacheMs = 1_000

/** At most this many keys are kept; when full, the cache starts over. */
const keyCacheSize = 10_000

/** The recently used API keys, by the digest of their secret. */
export class ApiKeyCache extends Context.Service<
  ApiKeyCache,
  {
    /**
     * The key whose secret has this digest, from the cache while it is fresh, else from the
     * store. Unknown digests are never kept, so guessing cannot fill the cache.
     */
    readonly find: (hash: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
    /** Forgets a key (it was just revoked): its next request reads it from the store again. */
    readonly forget: (keyId: string) => Effect.Effect<void>
  }
>()("postwire/server/ApiKeyCache") {
  /** The cache over the store in context: one per server, shared by the public and the admin API. */
  static readonly layer: Layer.Layer<ApiKeyCache, never, Store> = Layer.effect(
    ApiKeyCache,
    Effect.gen(function* () {
      const store = yield* Store
      const cache = new Map<string, { readonly key: ApiKeyRecord; readonly until: number }>()
      return ApiKeyCache.of({
        find: (hash) =>
          Effect.gen(function* () {
            const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
            const cached = cache.get(hash)
            if (cached !== undefined && cached.until > now) return Option.some(cached.key)
            const found = yield* store.findApiKeyByHash(hash).pipe(Effect.orDie)
            if (Option.isSome(found)) {
              if (cache.size >= keyCacheSize) cache.clear()
              cache.set(hash, { key: found.value, until: now + keyCacheMs })
            } else {
              cache.delete(hash)
            }
            return found
          }),
        forget: (keyId) =>
          Effect.sync(() => {
            for (const [hash, entry] of cache) if (entry.key.id === keyId) cache.delete(hash)
          })
      })
    })
  )
}
