import { randomBytes } from "node:crypto"
import { expect } from "vitest"
import {
  type PostFailedEvent,
  type PostPublishedEvent,
  type SignOptions,
  sign,
  WebhookVerificationError,
  type WebhookVerificationErrorReason
} from "@postwire/webhooks"

/** A fixed "now" in unix seconds, so that no test reads the wall clock unless it says so. */
export const NOW = 1_795_000_000

/** A secret shaped like the ones `POST /v1/webhooks` returns. */
export const aSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

export const aPostPublishedEvent = (overrides: Partial<PostPublishedEvent> = {}): PostPublishedEvent => ({
  id: "evt_01JD8XK2M3N4P5Q6R7S8T9V0W1",
  type: "post.published",
  created_at: "2026-11-22T01:02:03.456Z",
  livemode: false,
  data: {
    post_id: "post_01JD8XK2M3N4P5Q6R7S8T9V0W2",
    target_id: "tgt_01JD8XK2M3N4P5Q6R7S8T9V0W3",
    platform: "photo",
    permalink: "https://example.com/p/C0ffee/",
    published_at: "2026-11-22T01:02:03.123Z"
  },
  ...overrides
})

export const aPostFailedEvent = (overrides: Partial<PostFailedEvent> = {}): PostFailedEvent => ({
  id: "evt_01JD8XK2M3N4P5Q6R7S8T9V0W4",
  type: "post.failed",
  created_at: "2026-11-22T01:02:03.456Z",
  livemode: true,
  data: {
    post_id: "post_01JD8XK2M3N4P5Q6R7S8T9V0W2",
    target_id: "tgt_01JD8XK2M3N4P5Q6R7S8T9V0W5",
    platform: "shortvideo",
    error: {
      code: "media_too_large",
      message: "The video is larger than the platform allows.",
      message_id: "Video lebih besar dari batas platform.",
      target_id: "tgt_01JD8XK2M3N4P5Q6R7S8T9V0W5",
      field: "media[0]",
      retryable: false,
      docs: "https://postwire.dev/docs/errors#media_too_large"
    }
  },
  ...overrides
})

/** A body and the header the service would send with it. */
export interface Delivery {
  readonly body: string
  readonly header: string
}

export const aDelivery = async (
  options: { readonly body?: string; readonly secret: string | ReadonlyArray<string> } & SignOptions
): Promise<Delivery> => {
  const body = options.body ?? JSON.stringify(aPostPublishedEvent())
  const header = await sign(body, options.secret, { timestamp: options.timestamp ?? NOW })
  return { body, header }
}

/** Asserts that verification failed with a `WebhookVerificationError` of this reason. */
export const expectRejection = async (
  verification: Promise<unknown>,
  reason: WebhookVerificationErrorReason
): Promise<void> => {
  const outcome = await verification.then(
    (event) => ({ event }),
    (error: unknown) => ({ error })
  )
  expect(outcome).toHaveProperty("error")
  const { error } = outcome as { error: unknown }
  expect(error).toBeInstanceOf(WebhookVerificationError)
  expect((error as WebhookVerificationError).reason).toBe(reason)
}
