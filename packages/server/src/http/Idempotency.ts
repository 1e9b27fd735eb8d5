/**
 * `Idempotency-Key`: the same key with the same body within 24 hours is the same request, its
 * stored response replayed with `Idempotent-Replayed: true`. Scope: workspace and key.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { Effect, Exit, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { EngineConfig } from "@postwire/core"
import { type HttpError, type Ids, PostwireError } from "@postwire/domain"
import { IdempotencyStore } from "../limits/IdempotencyStore.ts"
import { renderFailure } from "./Failures.ts"

/** JSON with object keys sorted at every depth, so equal bodies hash equally. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v
  )

/** How long a claimed key may run before a crashed request's claim is taken over. */
const lockMs = 60_000

/**
 * Runs `effect` at most once per idempotency key; later calls with the same key and body get
 * the first response back.
 */
export const idempotent =
  <A, I>(options: {
    readonly key: string | undefined
    readonly workspaceId: Ids.WorkspaceId
    readonly keyId: Ids.KeyId
    /** What makes two requests the same: method, path and body. */
    readonly request: unknown
    readonly status: number
    readonly schema: Schema.Codec<A, I>
  }) =>
  <R>(effect: Effect.Effect<A, HttpError, R>) =>
    Effect.gen(function* () {
      const { key } = options
      if (key === undefined) return yield* effect
      const store = yield* IdempotencyStore
      const settings = yield* EngineConfig
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const requestHash = createHash("sha256").update(canonicalJson(options.request)).digest("hex")
      const scope = { workspaceId: options.workspaceId, keyId: options.keyId, key }
      const begun = yield* store
        .begin(
          {
            ...scope,
            requestHash,
            state: "in_progress",
            status: null,
            body: null,
            createdAt: now,
            lockedUntil: now + lockMs
          },
          now - settings.idempotencyTtlMs
        )
        .pipe(Effect.orDie)
      switch (begun._tag) {
        case "Replay":
          return HttpServerResponse.text(begun.body, {
            status: begun.status,
            contentType: "application/json",
            headers: { "idempotent-replayed": "true" }
          })
        case "Mismatch":
          return yield* Effect.flatMap(renderFailure(new PostwireError({ code: "idempotency_conflict" })), Effect.fail)
        case "InProgress":
          return yield* Effect.flatMap(renderFailure(new PostwireError({ code: "idempotency_in_progress" })), Effect.fail)
        case "Started":
          break
      }
      const encode = Schema.encodeSync(options.schema)
      return yield* effect.pipe(
        Effect.onExit((exit) =>
          (Exit.isSuccess(exit)
            ? store.complete(scope, options.status, JSON.stringify(encode(exit.value)))
            : store.release(scope)
          ).pipe(Effect.orDie)
        )
      )
    })
