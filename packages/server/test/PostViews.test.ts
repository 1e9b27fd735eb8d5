/**
 * The post as core returns it (a `PostRead`: records, no words) and as the server renders it: the
 * caller's language, the current catalog's words, the public URL of now for docs and the approval
 * link, and the approval's expiry as of the read.
 */
import { describe, expect, it } from "vitest"
import { ApprovalToken, Keyring, PostView, type ApprovalRecord } from "@postwire/core"
import { ErrorDetail, Ids as Id } from "@postwire/domain"
import * as Views from "../src/http/Views.ts"
import { aPostRecord, aTargetRecord, t0 } from "../../../test/support/Records.ts"

const keyring = Keyring.make(["test-secret-of-at-least-thirty-two-bytes"])

const approval: ApprovalRecord = {
  id: Id.unchecked("approval", "apr_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  workspaceId: Id.unchecked("workspace", "ws_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  postId: Id.unchecked("post", "post_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  tokenHash: ApprovalToken.approvalTokenHash(ApprovalToken.approvalToken(keyring, "apr_01JD8XK2M3N4P5Q6R7S8T9V0W1")),
  status: "pending",
  expiresAt: t0 + 3_600_000,
  decidedAt: null,
  reason: null,
  createdAt: t0
}

const failed = aTargetRecord({
  status: "failed",
  attempts: 1,
  publishedAt: null,
  error: {
    code: "media_invalid",
    details: { platform: "photo", detail: ErrorDetail.reason("unsupported_video_format") },
    platform_code: "352/2207026",
    retryable: false
  }
})
const published = aTargetRecord({ status: "published", attempts: 1, publishedAt: t0 + 1_000, permalink: "https://social.test/p/1" })
const aggregate = { post: aPostRecord({ status: "partially_published" }), targets: [published, failed], approval }

describe("post views", () => {
  it("renders a stored failure in the caller's language under the public URL given now", () => {
    const read = PostView.postRead(aggregate, keyring, t0)
    const english = Views.post(read, "en", "https://a.example")
    const indonesian = Views.post(read, "id", "https://b.example/pw")
    expect(english.targets[1]!.error).toEqual({
      code: "media_invalid",
      message: "The media does not fit photo: unsupported video format",
      message_id: "Media tidak sesuai untuk photo: format video tidak didukung",
      target_id: failed.id,
      retryable: false,
      docs: "https://a.example/docs/errors#media_invalid",
      platform_code: "352/2207026"
    })
    expect(indonesian.targets[1]!.error?.message).toBe("Media tidak sesuai untuk photo: format video tidak didukung")
    expect(indonesian.targets[1]!.error?.docs).toBe("https://b.example/pw/docs/errors#media_invalid")
    expect(english.targets[0]).toMatchObject({ status: "published", published_at: new Date(t0 + 1_000).toISOString(), error: null })
    expect(english.approval?.url).toBe(ApprovalToken.approvalUrl("https://a.example", read.approvalLink!.token))
    expect(indonesian.approval?.url).toBe(ApprovalToken.approvalUrl("https://b.example/pw", read.approvalLink!.token))
  })

  it("shows a pending approval as expired once read after its expiry, without changing the record", () => {
    expect(Views.post(PostView.postRead(aggregate, keyring, t0 + 3_599_999), "en", "https://a.example").approval?.status).toBe(
      "pending"
    )
    const late = PostView.postRead(aggregate, keyring, t0 + 3_600_000)
    expect(late.approval?.status).toBe("pending")
    expect(Views.post(late, "en", "https://a.example").approval?.status).toBe("expired")
  })

  it("reads a stored failure whose code this version does not know as internal_error, keeping the rest of the page", () => {
    const odd = aTargetRecord({
      status: "failed",
      error: { code: "platform_error" as never, platform_code: "2207026", retryable: false }
    })
    const read = PostView.postRead({ ...aggregate, targets: [published, odd] }, keyring, t0)
    const rendered = Views.post(read, "en", "https://a.example")
    expect(rendered.targets[1]!.error).toMatchObject({
      code: "internal_error",
      target_id: odd.id,
      platform_code: "2207026",
      retryable: false,
      docs: "https://a.example/docs/errors#internal_error"
    })
    expect(rendered.targets[0]!.status).toBe("published")
  })

  it("answers a create without approval when the post has none, with its warnings", () => {
    const created = Views.created(PostView.postRead({ ...aggregate, approval: null }, keyring, t0), "en", "https://a.example")
    expect("approval" in created).toBe(false)
    expect(created.warnings).toEqual([])
    expect(created.targets.map((t) => t.id)).toEqual([published.id, failed.id])
  })
})
