/**
 * `Idempotency-Key`: the same key with the same body within 24 hours is the same request, its
 * stored response replayed with `Idempotent-Replayed: true`. Scope: workspace and key.
 *
 * A key is either completed together with what its request created, or not used at all: the
 * use-case and the key's completion (the stored response) run in one database transaction, so
 * they commit or roll back together. A failure before the commit releases the key (nothing was
 * written); a commit whose answer was lost is settled on the key's row, and the key is never
 * released while that is unknown. Stored responses are sealed with the master secret, so the
 * approval links they hold are not readable in a copy of the database.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { CredentialsCipher, type CredentialsCipherShape, EngineConfig } from "@postwire/core"
import { type HttpError, httpErrors, type Ids, InternalError, PostwireError, Unavailable } from "@postwire/domain"
import type { ServerConfig } from "../config/ServerConfig.ts"
import { type IdempotencyClaim, IdempotencyStore } from "@postwire/core"
import { renderFailure, respond } from "./Failures.ts"

/** JSON with object keys sorted at every depth, so equal bodies hash equally. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v
  )

/** How long a claimed key may run before a crashed request's claim is taken over. */
const lockMs = 60_000

/** How long a request waits to learn whether its commit, whose answer was lost, happened. */
const settleMs = 10_000

/** What a stored response is sealed to: its key, so a sealed answer moved onto another key does not open. */
const sealContext = (claim: IdempotencyClaim) => `idempotency/${claim.workspaceId}/${claim.keyId}/${claim.key}`

/** Responses stored before they were sealed are JSON as is (they expire within 24 hours). */
const isUnsealed = (stored: string) => stored.startsWith("{") || stored.startsWith("[")

/** The stored form of a response body. */
export const sealResponse = (cipher: CredentialsCipherShape, claim: IdempotencyClaim, body: string): string =>
  cipher.seal(body, sealContext(claim))

/** A stored response body as sent; `None` when no listed master secret opens it. */
export const openResponse = (cipher: CredentialsCipherShape, claim: IdempotencyClaim, stored: string): Option.Option<string> =>
  isUnsealed(stored) ? Option.some(stored) : cipher.open(stored, sealContext(claim))

const isHttpError = (error: unknown): error is HttpError => httpErrors.some((errorClass) => error instanceof errorClass)

/** The claim of a request that changed nothing, refused because another request completed or took the key. */
class ClaimLost {
  readonly _tag = "ClaimLost"
}

/**
 * Runs `effect` at most once per idempotency key; later calls with the same key and body get
 * the first response back.
 *
 * By default (`atomic`) the effect runs in one transaction with the key's completion: use it for
 * use-cases that only write to the database. `atomic: false` is for use-cases that call out over
 * the network (a platform, a webhook receiver): no transaction is held across that call, the
 * response is stored after it, and a failure that may have come after the call acted (a 5xx, a
 * defect, an interruption) keeps the key claimed until its lock passes instead of releasing it.
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
    readonly atomic?: boolean | undefined
  }) =>
  <R>(effect: Effect.Effect<A, HttpError, R>) =>
    Effect.gen(function* () {
      const { key } = options
      if (key === undefined) return yield* effect
      const store = yield* IdempotencyStore
      const settings = yield* EngineConfig
      const cipher = yield* CredentialsCipher
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const requestHash = createHash("sha256").update(canonicalJson(options.request)).digest("hex")
      const claim: IdempotencyClaim = { workspaceId: options.workspaceId, keyId: options.keyId, key, lockedUntil: now + lockMs }
      const begun = yield* store
        .begin(
          {
            ...claim,
            requestHash,
            state: "in_progress",
            status: null,
            body: null,
            createdAt: now
          },
          now - settings.idempotencyTtlMs
        )
        .pipe(Effect.catch((error) => failWith(error)))
      const replay = (status: number, stored: string) =>
        Effect.gen(function* () {
          const body = openResponse(cipher, claim, stored)
          // Sealed under a master secret no longer listed: the answer cannot be shown, and the
          // request must not run again.
          if (Option.isNone(body)) return yield* failWith(new Error("stored idempotent response does not open"))
          return HttpServerResponse.text(body.value, {
            status,
            contentType: "application/json",
            headers: { "idempotent-replayed": "true" }
          })
        })
      switch (begun._tag) {
        case "Replay":
          return yield* replay(begun.status, begun.body)
        case "Mismatch":
          return yield* failWith(new PostwireError({ code: "idempotency_conflict" }))
        case "InProgress":
          return yield* failWith(new PostwireError({ code: "idempotency_in_progress" }))
        case "Started":
          break
      }
      // What follows the use-case (release, settle) runs even when the request is interrupted (its
      // client went away): only the use-case itself is interruptible.
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const encode = Schema.encodeSync(options.schema)
          const completeWith = (value: A) =>
            Effect.flatMap(
              store.complete(claim, options.status, sealResponse(cipher, claim, JSON.stringify(encode(value)))),
              (ours) => (ours ? Effect.void : Effect.fail(new ClaimLost()))
            )

          if (options.atomic === false) {
            const ran = yield* Effect.exit(restore(effect))
            if (Exit.isFailure(ran)) {
              // A refusal (4xx) changed nothing; anything else (a 5xx, a defect, an interruption)
              // may have come after the call acted.
              const refused = Cause.findErrorOption(ran.cause).pipe(
                Option.exists((e) => isHttpError(e) && !(e instanceof InternalError || e instanceof Unavailable))
              )
              if (refused) yield* store.release(claim).pipe(Effect.ignore)
              return yield* Effect.failCause(ran.cause)
            }
            yield* completeWith(ran.value).pipe(Effect.catch((error) => failWith(error)))
            return ran.value
          }

          // Set once the effect and the completion are written: from then on the transaction's
          // outcome is its COMMIT's, which a lost answer leaves unknown.
          let written: Option.Option<A> = Option.none()
          const ran = yield* Effect.exit(
            restore(
              store.transaction(
                Effect.gen(function* () {
                  const value = yield* effect
                  yield* completeWith(value)
                  written = Option.some(value)
                  return value
                })
              )
            )
          )
          if (Exit.isSuccess(ran)) return ran.value
          if (Option.isNone(written)) {
            // Rolled back (or never committed): nothing was written, the key may be used again.
            yield* store.release(claim).pipe(Effect.ignore)
            if (Cause.hasInterruptsOnly(ran.cause)) return yield* Effect.failCause(ran.cause as Cause.Cause<never>)
            return yield* failWith(Cause.squash(ran.cause), ran.cause)
          }
          // The COMMIT was sent and its answer lost: wait for its fate on the key's row. If the
          // database cannot say, the key stays claimed (never released while unknown); a retry finds
          // the stored response, or takes the key over once its lock has passed.
          // Bounded: a black-holed connection keeps the lost transaction (and its row lock) open
          // until PostgreSQL notices; the request does not wait for that, the key stays claimed.
          const settled = yield* Effect.exit(store.settle(claim).pipe(Effect.timeout(settleMs)))
          if (Exit.isSuccess(settled) && settled.value._tag === "Committed") {
            yield* Effect.logWarning("a commit's answer was lost; the key's transaction had committed")
            return written.value
          }
          return yield* failWith(Cause.squash(ran.cause), ran.cause)
        })
      )
    })

/**
 * The answer for `error`: an `HttpError` as is, a domain failure rendered, `ClaimLost` as the key
 * in progress, anything else (the database) as `respond` renders the unexpected.
 */
const failWith = (
  error: unknown,
  cause?: Cause.Cause<unknown>
): Effect.Effect<never, HttpError, HttpServerRequest.HttpServerRequest | ServerConfig> => {
  if (isHttpError(error)) return Effect.fail(error)
  if (error instanceof PostwireError) return Effect.flatMap(renderFailure(error), Effect.fail)
  if (error instanceof ClaimLost) return Effect.flatMap(renderFailure(new PostwireError({ code: "idempotency_in_progress" })), Effect.fail)
  return respond(cause === undefined ? Effect.fail(error) : Effect.failCause(cause))
}
