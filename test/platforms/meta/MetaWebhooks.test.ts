import { assert, describe, it } from "@effect/vitest"
import { parseMetaCommentHook, verifyMetaSignature } from "@postwire/platforms"
import { CommentStore } from "./CommentFake.ts"
import * as MetaWebhookFake from "./MetaWebhookFake.ts"

const secret = "a1b2c3d4e5f6meta-app-secret"
const igUserId = "17841400000000001"
const pageId = "104000000000001"
const threadsUserId = "25000000000000001"
const createdAt = 1_795_000_000_000

const store = new CommentStore("1791000000")
const igComment = store.add({ on: "17900000000000001", text: "Is it vegan?", username: "lena.k", authorId: "178414999", at: createdAt })
const igReply = store.add({ on: "17900000000000001", parentId: igComment.id, text: "Yes!", username: "maya.bakes", authorId: igUserId, at: createdAt })
const pagePost = `${pageId}_1220000000000001`
const pageComment = store.add({ id: "1220000000000001_555", on: pagePost, text: "Open today?", username: "Tom Baker", authorId: "2400000001", at: createdAt })
const pageReply = store.add({ id: "1220000000000001_556", on: pagePost, parentId: pageComment.id, text: "Until 6", username: "Maya Bakes", authorId: pageId, at: createdAt })
const threadsReply = store.add({ on: "18000000000000001", text: "Saving this", username: "tom_b", at: createdAt })
const threadsDeeper = store.add({ on: "18000000000000001", parentId: threadsReply.id, text: "Enjoy", username: "maya.bakes", at: createdAt })

describe("verifyMetaSignature", () => {
  it("accepts a body signed like Meta signs it", () => {
    const delivery = MetaWebhookFake.sign(MetaWebhookFake.instagramComment(igUserId, igComment), secret)
    assert.isTrue(verifyMetaSignature(delivery.raw, delivery.header, [secret]))
  })

  it("refuses a body changed after signing (a forgery)", () => {
    const delivery = MetaWebhookFake.sign(MetaWebhookFake.instagramComment(igUserId, igComment), secret)
    const forged = new TextEncoder().encode(delivery.text.replace("Is it vegan?", "Buy followers at scam.example"))
    assert.isFalse(verifyMetaSignature(forged, delivery.header, [secret]))
    // One byte off, same length.
    const flipped = Uint8Array.from(delivery.raw)
    flipped[10] = flipped[10]! ^ 1
    assert.isFalse(verifyMetaSignature(flipped, delivery.header, [secret]))
  })

  it("refuses a signature made with another secret", () => {
    const delivery = MetaWebhookFake.sign(MetaWebhookFake.pageComment(pageId, pageComment), "someone-elses-secret")
    assert.isFalse(verifyMetaSignature(delivery.raw, delivery.header, [secret]))
  })

  it("accepts any of the listed secrets (a rotation, or one app each for Facebook/Instagram and Threads)", () => {
    const old = MetaWebhookFake.sign(MetaWebhookFake.pageComment(pageId, pageComment), "old-secret")
    const current = MetaWebhookFake.sign(MetaWebhookFake.pageComment(pageId, pageComment), "new-secret")
    assert.isTrue(verifyMetaSignature(old.raw, old.header, ["new-secret", "old-secret"]))
    assert.isTrue(verifyMetaSignature(current.raw, current.header, ["new-secret", "old-secret"]))
    assert.isFalse(verifyMetaSignature(old.raw, old.header, ["new-secret"]))
  })

  it("refuses a missing or malformed header, and any body when no secret is configured", () => {
    const delivery = MetaWebhookFake.sign({ object: "page", entry: [] }, secret)
    const hex = delivery.header.slice("sha256=".length)
    assert.isFalse(verifyMetaSignature(delivery.raw, undefined, [secret]))
    assert.isFalse(verifyMetaSignature(delivery.raw, "", [secret]))
    assert.isFalse(verifyMetaSignature(delivery.raw, hex, [secret]))
    assert.isFalse(verifyMetaSignature(delivery.raw, `sha1=${hex}`, [secret]))
    assert.isFalse(verifyMetaSignature(delivery.raw, `sha256=${hex.slice(2)}`, [secret]))
    assert.isFalse(verifyMetaSignature(delivery.raw, `sha256=${"z".repeat(64)}`, [secret]))
    assert.isFalse(verifyMetaSignature(delivery.raw, delivery.header, []))
    assert.isFalse(verifyMetaSignature(delivery.raw, delivery.header, [""]))
    // Meta writes lowercase hex; the case does not matter.
    assert.isTrue(verifyMetaSignature(delivery.raw, `sha256=${hex.toUpperCase()}`, [secret]))
  })
})

describe("parseMetaCommentHook", () => {
  it("reads an Instagram comments delivery: the account, the media, the comment", () => {
    const [pushed] = parseMetaCommentHook(MetaWebhookFake.instagramComment(igUserId, igComment))
    assert.deepStrictEqual(pushed, {
      platform: "photo",
      accountExternalId: igUserId,
      platformPostId: "17900000000000001",
      change: "added",
      comment: {
        platformCommentId: igComment.id,
        parentPlatformCommentId: null,
        authorHandle: "lena.k",
        authorDisplayName: null,
        authorPlatformId: "178414999",
        text: "Is it vegan?",
        createdAt,
        hidden: false,
        likeCount: null,
        fromOwner: false,
        permalink: null
      }
    })
    const [reply] = parseMetaCommentHook(MetaWebhookFake.instagramComment(igUserId, igReply))
    assert.strictEqual(reply!.comment.parentPlatformCommentId, igComment.id)
    assert.isTrue(reply!.comment.fromOwner)
  })

  it("reads Page feed comment items with their verbs", () => {
    const [added] = parseMetaCommentHook(MetaWebhookFake.pageComment(pageId, pageComment))
    assert.deepStrictEqual(
      [added!.platform, added!.accountExternalId, added!.platformPostId, added!.change],
      ["pages", pageId, pagePost, "added"]
    )
    assert.strictEqual(added!.comment.parentPlatformCommentId, null)
    assert.strictEqual(added!.comment.authorHandle, "Tom Baker")
    assert.strictEqual(added!.comment.createdAt, createdAt)
    const [reply] = parseMetaCommentHook(MetaWebhookFake.pageComment(pageId, pageReply, "edited"))
    assert.strictEqual(reply!.change, "edited")
    assert.strictEqual(reply!.comment.parentPlatformCommentId, pageComment.id)
    assert.isTrue(reply!.comment.fromOwner)
    const [removed] = parseMetaCommentHook(MetaWebhookFake.pageComment(pageId, pageComment, "remove"))
    assert.strictEqual(removed!.change, "removed")
  })

  it("reads Threads replies deliveries in their own shape", () => {
    const [top] = parseMetaCommentHook(MetaWebhookFake.threadsReply(threadsUserId, "maya.bakes", threadsReply))
    assert.deepStrictEqual(
      [top!.platform, top!.accountExternalId, top!.platformPostId, top!.change, top!.comment.parentPlatformCommentId],
      ["textpost", threadsUserId, "18000000000000001", "added", null]
    )
    assert.strictEqual(top!.comment.createdAt, createdAt)
    assert.match(top!.comment.permalink ?? "", /^https:\/\/www\.threads\.net\/@tom_b\/post\//)
    const [deeper] = parseMetaCommentHook(MetaWebhookFake.threadsReply(threadsUserId, "maya.bakes", threadsDeeper))
    assert.strictEqual(deeper!.comment.parentPlatformCommentId, threadsReply.id)
    assert.isTrue(deeper!.comment.fromOwner)
    // Several deliveries at once, or several values in one.
    const one = MetaWebhookFake.threadsReply(threadsUserId, "maya.bakes", threadsReply)
    assert.strictEqual(parseMetaCommentHook([one, MetaWebhookFake.threadsReply(threadsUserId, "maya.bakes", threadsDeeper)]).length, 2)
    assert.strictEqual(parseMetaCommentHook({ ...one, values: [one.values, one.values] }).length, 2)
  })

  it("reads every comment of a batched delivery and skips the changes it does not know", () => {
    const ig = MetaWebhookFake.instagramComment(igUserId, igComment)
    const batched = {
      object: "instagram",
      entry: [
        { ...ig.entry[0]!, changes: [...ig.entry[0]!.changes, { field: "mentions", value: { media_id: "1", comment_id: "2" } }] },
        MetaWebhookFake.instagramComment(igUserId, igReply).entry[0]!,
        { id: igUserId, time: 1, changes: [{ field: "live_comments", value: { id: "9" } }] }
      ]
    }
    assert.deepStrictEqual(
      parseMetaCommentHook(batched).map((p) => p.comment.platformCommentId),
      [igComment.id, igReply.id]
    )
    const page = MetaWebhookFake.pageComment(pageId, pageComment)
    const others = {
      object: "page",
      entry: [
        {
          id: pageId,
          time: 1,
          changes: [
            { field: "feed", value: { item: "reaction", verb: "add", post_id: pagePost, reaction_type: "love" } },
            { field: "feed", value: { item: "status", verb: "add", post_id: pagePost } },
            { field: "feed", value: { ...page.entry[0]!.changes[0]!.value, verb: "hide" } },
            { field: "mention", value: { post_id: pagePost } }
          ]
        }
      ]
    }
    assert.deepStrictEqual(parseMetaCommentHook(others), [])
    assert.deepStrictEqual(parseMetaCommentHook({ object: "whatsapp_business_account", entry: page.entry }), [])
    assert.deepStrictEqual(parseMetaCommentHook({ object: "instagram", entry: page.entry }), [])
  })

  it("gives an empty list for garbage, never an exception", () => {
    for (const garbage of [
      null,
      undefined,
      "",
      "object=page",
      42,
      true,
      [],
      [null, 1, "x"],
      {},
      { object: "page" },
      { object: "page", entry: "nope" },
      { object: "page", entry: [null, 1, { changes: "x" }, { changes: [null, { field: "feed" }, { field: "feed", value: [] }] }] },
      { object: "instagram", entry: [{ changes: [{ field: "comments", value: { id: 5 } }] }] },
      { values: { field: "replies", value: { id: "1" } } },
      { values: null },
      Object.create(null)
    ]) {
      assert.deepStrictEqual(parseMetaCommentHook(garbage), [], JSON.stringify(garbage) ?? String(garbage))
    }
  })
})
