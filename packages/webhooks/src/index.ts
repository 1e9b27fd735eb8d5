/**
 * Verify the signed webhook deliveries of a Postwire server: Web Crypto, no dependencies,
 * Node 18+ and edge runtimes alike.
 *
 * @example
 * ```ts
 * import { SIGNATURE_HEADER, verify } from "@postwire/webhooks"
 *
 * const event = await verify(await request.text(), request.headers.get(SIGNATURE_HEADER), secret)
 * ```
 *
 * @packageDocumentation
 */
export { WebhookVerificationError, type WebhookVerificationErrorReason } from "./errors.ts"
export { EVENT_ID_HEADER, SIGNATURE_HEADER } from "./headers.ts"
export type { RawBody } from "./RawBody.ts"
export { type SignOptions, sign } from "./sign.ts"
export {
  DEFAULT_TOLERANCE_SECONDS,
  type Now,
  type SignatureHeaderValue,
  type VerifyOptions,
  verify
} from "./verify.ts"
export type {
  AccountConnectedEvent,
  AccountDisconnectedEvent,
  AccountNeedsReconnectEvent,
  CommentCreatedEvent,
  ErrorObject,
  Platform,
  PostApprovedEvent,
  PostAwaitingApprovalEvent,
  PostFailedData,
  PostFailedEvent,
  PostPublishedData,
  PostPublishedEvent,
  PostPublishingEvent,
  PostRejectedEvent,
  PostScheduledEvent,
  UntypedEventData,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType
} from "./WebhookEvent.ts"
export type { WebhookSecret } from "./WebhookSecret.ts"
