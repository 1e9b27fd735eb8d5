/**
 * Mistakes the installed SDK's types must catch: each line below is an error, and
 * `@ts-expect-error` fails the check when it is not (types that had become `any` would let
 * every one of them through).
 */
import { type CreatePostInput, Postwire } from "@postwire/client"

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
  (post: Awaited<ReturnType<typeof postwire.posts.get>>) => post.status === "done"
]
