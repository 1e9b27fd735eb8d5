/**
 * `/platform-hooks/meta`: where Meta sends new comments (Instagram `comments`, Page `feed`,
 * Threads `replies`). `GET` answers the subscription check with the configured verify token;
 * `POST` accepts only bodies signed with one of the configured app secrets, and stores each
 * comment through the same path as polling, so a comment seen by both is stored and announced
 * once. Refusals are 401 in the shared error shape.
 *
 * @since 0.3.0
 */
import { timingSafeEqual } from "node:crypto"
import { CommentIngestion } from "@postwire/core"
import { ErrorDetail, localeFromAcceptLanguage, PostwireError } from "@postwire/domain"
import { parseMetaCommentHook, verifyMetaSignature } from "@postwire/platforms"
import { Cause, Clock, Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ServerConfig } from "../config/ServerConfig.ts"
import { errorResponse } from "../http/Failures.ts"

/** The largest body accepted: Meta batches changes, but a delivery stays small. */
const maxBodyBytes = 1024 * 1024

const refuse = (error: PostwireError) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* ServerConfig
    const locale = localeFromAcceptLanguage(request.headers["accept-language"])
    return errorResponse(error, locale, config.publicUrl)
  })

const unverified = (reason: "hook_signature_mismatch" | "hook_verify_token_mismatch") =>
  refuse(new PostwireError({ code: "platform_hook_unverified", details: { detail: ErrorDetail.reason(reason) } }))

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** `GET /platform-hooks/meta`: echoes `hub.challenge` when `hub.verify_token` is the configured one. */
const verifySubscription = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* ServerConfig
  const query = new URL(request.url, "http://localhost").searchParams
  const token = config.comments.metaVerifyToken
  const given = query.get("hub.verify_token") ?? ""
  if (query.get("hub.mode") !== "subscribe" || token === undefined || !sameSecret(given, Redacted.value(token))) {
    return yield* unverified("hook_verify_token_mismatch")
  }
  return HttpServerResponse.text(query.get("hub.challenge") ?? "")
})

/** `POST /platform-hooks/meta`: a signed delivery of changes. */
const receiveDelivery = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* ServerConfig
  const body = new Uint8Array(yield* request.arrayBuffer)
  const secrets = config.comments.metaAppSecrets.map(Redacted.value)
  if (body.byteLength > maxBodyBytes || !verifyMetaSignature(body, request.headers["x-hub-signature-256"], secrets)) {
    return yield* unverified("hook_signature_mismatch")
  }
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder().decode(body))
  } catch {
    return yield* refuse(
      new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("must_be_object") } })
    )
  }
  const stored = yield* CommentIngestion.ingestPushedComments(parseMetaCommentHook(json, yield* Clock.currentTimeMillis))
  return HttpServerResponse.jsonUnsafe({ received: true, stored })
}).pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.failCause(cause as Cause.Cause<never>)
      : Effect.logError("a Meta webhook delivery failed", cause).pipe(
          // Meta retries a delivery that was not answered with 200.
          Effect.andThen(refuse(new PostwireError({ code: "internal_error" })))
        )
  )
)

/** The routes of Meta's comment webhooks. */
export const PlatformHookRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/platform-hooks/meta", verifySubscription),
  HttpRouter.add("POST", "/platform-hooks/meta", receiveDelivery)
)
