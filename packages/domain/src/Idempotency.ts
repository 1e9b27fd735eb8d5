/**
 * The `Idempotency-Key` request header, shared by every POST that accepts it.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/** The optional `Idempotency-Key` header of POST requests. */
export const IdempotencyHeaders = Schema.Struct({
  /** A key of your choosing, 1 to 255 characters, that makes the request safe to send again: the same key with the same body within 24 hours answers with the first response and `Idempotent-Replayed: true`; with another body it is 409 `idempotency_conflict`, and while the first is still running 409 `idempotency_in_progress`. Scoped to the workspace and the API key. */
  "idempotency-key": Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)).annotate({ description: "A key of your choosing, 1 to 255 characters, that makes the request safe to send again: the same key with the same body within 24 hours answers with the first response and `Idempotent-Replayed: true`; with another body it is 409 `idempotency_conflict`, and while the first is still running 409 `idempotency_in_progress`. Scoped to the workspace and the API key." }))
})
