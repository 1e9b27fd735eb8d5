/**
 * Mistakes the installed SDK's types must catch: each line below is an error, and
 * `@ts-expect-error` fails the check when it is not (types that had become `any` would let
 * every one of them through).
 */
import { type CreatePostInput, Postwire, PostwireClient } from "@postwire/client"
import { Effect } from "effect"

const postwire = new Postwire({ apiKey: "svc_test_x", baseUrl: "http://localhost:8080" })

const good: CreatePostInput = { profile_id: "prof_1", caption: "Hi", media: ["med_1"], targets: [{ account_id: "acc_1" }] }

export const mistakes = [
  // @ts-expect-error a field the API does not have
  () => postwire.posts.create({ ...good, nonsense: true }),
  // @ts-expect-error a misspelled field inside a target
  () => postwire.posts.create({ ...good, targets: [{ acount_id: "acc_1" }] }),
  // @ts-expect-error a status that does not exist
  () => postwire.posts.list({ status: "done" }),
  // @ts-expect-error a photo type that does not exist
  () => postwire.posts.create({ ...good, targets: [{ account_id: "acc_1", photo: { type: "square" } }] }),
  // @ts-expect-error an approval mode that does not exist
  () => postwire.posts.create({ ...good, approval: { mode: "maybe" } }),
  // @ts-expect-error the caption is required
  () => postwire.posts.create({ profile_id: "prof_1", media: ["med_1"], targets: [{ account_id: "acc_1" }] }),
  // @ts-expect-error a post's status is one of the known ones, not any string
  (post: Awaited<ReturnType<typeof postwire.posts.get>>) => post.status === "done",
  // The methods derived from the contract keep each endpoint's calling convention:
  // @ts-expect-error the id of the post is required
  () => postwire.posts.get(),
  // @ts-expect-error an id is a string
  () => postwire.posts.cancel(42),
  // @ts-expect-error update takes the id, then the body
  () => postwire.posts.update({ caption: "Hi" }),
  // @ts-expect-error a delivery needs its endpoint's id and its own
  () => postwire.webhooks.deliveries.get("wh_1"),
  // @ts-expect-error validate takes no idempotency options (its endpoint declares none)
  () => postwire.posts.validate(good, { idempotencyKey: "k" }),
  // @ts-expect-error an idempotency key is a string
  () => postwire.comments.reply("cmt_1", { text: "Thanks" }, { idempotencyKey: 7 }),
  // @ts-expect-error the Promise client has no streams: `for await` over `list` instead
  () => postwire.posts.listAll(),
  // @ts-expect-error the steps of a resumable upload are inside media.upload
  () => postwire.media.createUpload({ filename: "a.mp4", size: 1 }),
  // @ts-expect-error the delivery log is under webhooks.deliveries
  () => postwire.webhooks.listDeliveries("wh_1"),
  // @ts-expect-error a media source is a path, bytes, a blob or a stream, not a URL to import
  () => postwire.media.upload({ url: "https://example.com/a.png" }),
  // @ts-expect-error the Effect client's list answers an Effect, not a Promise
  () => PostwireClient.use((client) => client.posts.list().then(() => undefined)),
  // @ts-expect-error the Effect client's errors are PostwireClientError, which has no tag "Nope"
  () => PostwireClient.use((client) => Effect.catchTag(client.posts.get("post_1"), "Nope", () => Effect.void))
]
