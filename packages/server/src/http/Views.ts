/**
 * What the use-cases return as domain values, rendered at the edge: failures into the shared
 * error shape, in the request's language and under the server's public URL of now.
 *
 * @since 0.4.0
 */
import {
  ApprovalToken,
  type Approvals,
  type AttemptRecord,
  type DeliveryDetail,
  DeliveryLog,
  Media,
  type PostBatch,
  PostView,
  TargetDetails,
  type TargetRecord,
  TargetErrors,
  type WebhookDeliveryRecord,
  Webhooks
} from "@postwire/core"
import {
  type Approval,
  formatInstant,
  type Locale,
  type Media as MediaWire,
  type Post,
  type PostwireError,
  renderError,
  type Webhook
} from "@postwire/domain"

/**
 * A target as the API shows it; its failure, stored as data, is rendered now: in the caller's
 * language, the current catalog's words, with its docs address under `publicBaseUrl`.
 * `approvalId` is the post's current approval, whose consent is shown in the platform's options
 * (`options.<platform>.consent`).
 */
export const target = (record: TargetRecord, approvalId: string | null, locale: Locale, publicBaseUrl: string): Post.Target => {
  // What the platform adapter did to make it publishable (a PNG sent as JPEG), from its state.
  const details = TargetDetails.fromState(record.platformState)
  return {
    id: record.id,
    account_id: record.accountId,
    platform: record.platform,
    status: record.status,
    permalink: record.permalink,
    published_at: record.publishedAt === null ? null : formatInstant(record.publishedAt),
    error: record.error === null ? null : TargetErrors.renderTargetError(record.id, record.error, locale, publicBaseUrl),
    attempts: record.attempts,
    options: PostView.optionsInForce(record, approvalId),
    ...(details === undefined ? {} : { details })
  }
}

/** The approval of a post as the API shows it, with its link under `publicBaseUrl`. */
const approval = (read: PostView.PostRead, publicBaseUrl: string): Post.Approval | null => {
  const record = read.approval
  const link = read.approvalLink
  if (record === null || link === null) return null
  return {
    id: record.id,
    status: link.status,
    url: ApprovalToken.approvalUrl(publicBaseUrl, link.token),
    expires_at: formatInstant(record.expiresAt),
    decided_at: record.decidedAt === null ? null : formatInstant(record.decidedAt)
  }
}

/** The post detail (`GET /v1/posts/{id}`, PATCH, cancel, each item of the list). */
export const post = (read: PostView.PostRead, locale: Locale, publicBaseUrl: string): Post.Post => {
  const { post } = read
  const approvalId = read.approval?.id ?? null
  return {
    id: post.id,
    profile_id: post.profileId,
    caption: post.caption,
    media: post.media,
    status: post.status,
    scheduled_at: post.scheduledAt === null ? null : formatInstant(post.scheduledAt),
    ai_generated: post.aiGenerated,
    approval: approval(read, publicBaseUrl),
    targets: read.targets.map((t) => target(t, approvalId, locale, publicBaseUrl)),
    created_at: formatInstant(post.createdAt),
    updated_at: formatInstant(post.updatedAt)
  }
}

/** `GET /v1/posts`: a page of posts. */
export const postList = (
  page: { readonly data: ReadonlyArray<PostView.PostRead>; readonly cursor: Post.PostList["cursor"] },
  locale: Locale,
  publicBaseUrl: string
): Post.PostList => ({ data: page.data.map((read) => post(read, locale, publicBaseUrl)), cursor: page.cursor })

/** `POST /v1/posts`: the post, without `approval` when it has none, and its warnings. */
export const created = (read: PostView.PostRead, locale: Locale, publicBaseUrl: string): Post.CreatePostResponse => {
  const { approval: approvalDetail, ...rest } = post(read, locale, publicBaseUrl)
  return { ...rest, ...(approvalDetail === null ? {} : { approval: approvalDetail }), warnings: [] }
}

/** `POST /v1/posts/{id}/retry`: the targets queued again. */
export const retried = (result: PostView.RetryResult, locale: Locale, publicBaseUrl: string): Post.RetryPostResponse => {
  const approvalId = result.post.approval?.id ?? null
  return { data: result.retried.map((t) => target(t, approvalId, locale, publicBaseUrl)) }
}

/** `POST /v1/approvals/{token}/decision`: the decision and the post as saved. */
export const decision = (result: Approvals.Decision, locale: Locale, publicBaseUrl: string): Approval.DecisionResponse => ({
  decision: result.decision,
  post: post(result.post, locale, publicBaseUrl),
  redirect_url: result.redirect_url
})

/** `POST /v1/posts/validate`: every problem found, in the shared error shape. */
export const validation = (
  result: { readonly problems: ReadonlyArray<PostwireError> },
  locale: Locale,
  publicBaseUrl: string
): Post.ValidatePostResponse => ({ issues: result.problems.map((p) => renderError(p, locale, publicBaseUrl)) })

/** `POST /v1/posts/batch`: each item's post, or its refusal rendered as the same request alone would answer it. */
export const batch = (result: PostBatch.BatchResult, locale: Locale, publicBaseUrl: string): Post.CreatePostBatchResponse => ({
  data: result.items.map((item): Post.PostBatchResult => {
    if ("post" in item) return { index: item.index, status: 201, post: created(item.post, locale, publicBaseUrl) }
    const rendered = renderError(item.error, locale, publicBaseUrl)
    return {
      index: item.index,
      status: item.error.httpStatus,
      // As alone: a 422 always lists its problems in `issues`.
      error: item.error.httpStatus === 422 && rendered.issues === undefined ? { ...rendered, issues: [rendered] } : rendered
    }
  }),
  created: result.created,
  refused: result.refused
})

/** `POST /v1/webhooks/{id}/test`: what the test delivery did, and why it failed in the shared error shape. */
export const webhookTest = (result: Webhooks.TestOutcome, locale: Locale, publicBaseUrl: string): Webhook.WebhookTestResult => {
  const { failure, ...rest } = result
  return failure === null ? rest : { ...rest, error: renderError(failure, locale, publicBaseUrl) }
}

/** A media item: a failed item's stored failure rendered in the request's language. */
export const media = (item: Media.MediaItem, locale: Locale, publicBaseUrl: string): MediaWire.Media =>
  Media.mediaView(item.record, { locale, publicBaseUrl, upload: item.upload })

/** `GET /v1/media`: a page of items. */
export const mediaList = <C>(
  page: { readonly data: ReadonlyArray<Media.MediaItem>; readonly cursor: C },
  locale: Locale,
  publicBaseUrl: string
) => ({ data: page.data.map((item) => media(item, locale, publicBaseUrl)), cursor: page.cursor })

/** One attempt as the delivery log shows it, its stored error rendered in `locale`. */
const attempt = (record: AttemptRecord, locale: Locale, publicBaseUrl: string): Webhook.DeliveryAttempt => ({
  attempted_at: formatInstant(record.at),
  duration_ms: record.durationMs,
  status_code: record.statusCode,
  response_body: record.responseBody,
  error: record.error === null ? null : Webhooks.renderStoredError(record.error, locale, publicBaseUrl),
  redelivery: record.redelivery
})

const deliveryFields = (delivery: WebhookDeliveryRecord) => ({
  id: delivery.id,
  endpoint_id: delivery.endpointId,
  event_id: delivery.eventId,
  event_type: delivery.eventType as Webhook.WebhookEventType,
  // A delivery given up is `failed` on the wire.
  status: delivery.status === "dead" ? ("failed" as const) : delivery.status,
  attempt_count: delivery.attempts,
  created_at: formatInstant(delivery.createdAt),
  last_attempt_at: delivery.lastAttemptAt === null ? null : formatInstant(delivery.lastAttemptAt),
  next_attempt_at: delivery.nextAttemptAt === null ? null : formatInstant(delivery.nextAttemptAt),
  given_up_reason: DeliveryLog.givenUpReason(delivery)
})

/** `GET /v1/webhooks/{id}/deliveries`: each delivery with its latest attempt. */
export const deliveryList = (page: DeliveryLog.DeliveryPage, locale: Locale, publicBaseUrl: string): Webhook.WebhookDeliveryList => ({
  data: page.data.map(({ delivery, lastAttempt }) => ({
    ...deliveryFields(delivery),
    last_attempt: lastAttempt === null ? null : attempt(lastAttempt, locale, publicBaseUrl)
  })),
  cursor: page.cursor
})

/** A delivery with its attempts, newest first (read, and the answer of a redelivery). */
export const deliveryDetail = (detail: DeliveryDetail, locale: Locale, publicBaseUrl: string): Webhook.WebhookDeliveryDetail => ({
  ...deliveryFields(detail.delivery),
  attempts: detail.attempts.map((a) => attempt(a, locale, publicBaseUrl))
})
