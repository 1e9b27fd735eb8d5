/**
 * What the use-cases return as domain values, rendered at the edge: failures into the shared
 * error shape, in the request's language and under the server's public URL of now.
 *
 * @since 0.4.0
 */
import { Media, type PostBatch, type Webhooks } from "@postwire/core"
import { type Locale, type Media as MediaWire, type Post, type PostwireError, renderError, type Webhook } from "@postwire/domain"

/** `POST /v1/posts/validate`: every problem found, in the shared error shape. */
export const validation = (
  result: { readonly problems: ReadonlyArray<PostwireError> },
  locale: Locale,
  publicBaseUrl: string
): Post.ValidatePostResponse => ({ issues: result.problems.map((p) => renderError(p, locale, publicBaseUrl)) })

/** `POST /v1/posts/batch`: each item's post, or its refusal rendered as the same request alone would answer it. */
export const batch = (result: PostBatch.BatchResult, locale: Locale, publicBaseUrl: string): Post.CreatePostBatchResponse => ({
  data: result.items.map((item): Post.PostBatchResult => {
    if ("post" in item) return { index: item.index, status: 201, post: item.post }
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
