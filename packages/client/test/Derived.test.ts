/**
 * The clients are derived from the contract: every endpoint of every group of `Api` is a method
 * of both clients, with no code written for it, and each method's signature follows from the
 * endpoint (path parameters, then the body or the query, then the idempotency options).
 */
import { Api } from "@postwire/domain"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { describe, expect, expectTypeOf, it } from "vitest"
import {
  type CreateOptions,
  type CreatePostInput,
  type ListPostsInput,
  type Post,
  Postwire,
  PostwireClient,
  type PostwireClientError,
  type ReconnectAccountInput
} from "@postwire/client"
import type { ConnectLink, CreatePostResult, ListPage, WebhookDeliveryDetail } from "@postwire/client"
import type { PagePromise } from "../src/Page.ts"
import { FIXTURE_API_KEY } from "./fixtures/FakePostwire.ts"
import { aPost } from "./fixtures/builders.ts"
import { clientFor, useFakePostwire } from "./fixtures/client.ts"

const fake = useFakePostwire()

/** Where the SDK puts the endpoints whose methods are written by hand (the rest keep their endpoint's name). */
const handWritten: Record<string, Record<string, string | null>> = {
  media: { upload: "upload", createUpload: null, getUpload: null, uploadPart: null, completeUpload: null },
  webhooks: { listDeliveries: "deliveries.list", getDelivery: "deliveries.get", redeliver: "deliveries.redeliver" }
}

const contractGroups = Object.values(
  (Api as unknown as { groups: Record<string, { identifier: string; topLevel: boolean; endpoints: Record<string, unknown> }> }).groups
).filter((group) => !group.topLevel)

const at = (root: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], root)

describe("the clients derived from the contract", () => {
  it("have a method for every endpoint of every group, in both the Promise and the Effect client", async () => {
    const promise = clientFor(fake.current)
    const effect = await Effect.runPromise(
      PostwireClient.make({ apiKey: FIXTURE_API_KEY, baseUrl: fake.current.url }).pipe(Effect.provide(FetchHttpClient.layer))
    )
    const missing: Array<string> = []
    let endpoints = 0
    for (const group of contractGroups) {
      for (const name of Object.keys(group.endpoints)) {
        endpoints++
        const place = handWritten[group.identifier]?.[name]
        if (place === null) continue // a step of the resumable upload, inside media.upload
        const path = [group.identifier, ...(place ?? name).split(".")]
        if (typeof at(promise, path) !== "function") missing.push(`Postwire ${path.join(".")}`)
        if (typeof at(effect, path) !== "function") missing.push(`PostwireClient ${path.join(".")}`)
      }
      if ("list" in group.endpoints && typeof at(effect, [group.identifier, "listAll"]) !== "function") {
        missing.push(`PostwireClient ${group.identifier}.listAll`)
      }
    }
    expect(endpoints).toBeGreaterThan(40)
    expect(missing).toEqual([])
  })

  it("send what the endpoint says: path parameters in order, then the query, and answer its success", async () => {
    const post = aPost({ status: "failed" })
    fake.current.posts = [post]
    const postwire = clientFor(fake.current)

    const got = await postwire.posts.get(post.id)
    const page = await postwire.posts.list({ status: "failed", limit: 5 })

    expect(got.id).toBe(post.id)
    expect(page.data.map((each) => each.id)).toEqual([post.id])
    expect(fake.current.requests.map((request) => `${request.method} ${request.path} ${request.query}`)).toEqual([
      `GET /v1/posts/${post.id} `,
      "GET /v1/posts status=failed&limit=5"
    ])
  })

  it("reject an empty path parameter naming it, before any request", async () => {
    const error = await clientFor(fake.current)
      .webhooks.deliveries.get("wh_1", "")
      .catch((e: unknown) => e)

    expect(error).toMatchObject({ status: 400, code: "invalid_request", field: "delivery_id" })
    expect(fake.current.requests).toEqual([])
  })

  it("give each method the signature its endpoint implies", () => {
    const postwire = new Postwire({ apiKey: FIXTURE_API_KEY, baseUrl: fake.current.url })
    expectTypeOf(postwire.posts.get).toEqualTypeOf<(id: string) => Promise<Post>>()
    expectTypeOf(postwire.posts.create).toEqualTypeOf<(body: CreatePostInput, options?: CreateOptions) => Promise<CreatePostResult>>()
    expectTypeOf(postwire.posts.list).toEqualTypeOf<(query?: ListPostsInput) => PagePromise<Post>>()
    expectTypeOf(postwire.accounts.reconnect).toEqualTypeOf<(id: string, body?: ReconnectAccountInput) => Promise<ConnectLink>>()
    expectTypeOf(postwire.webhooks.deliveries.redeliver).returns.toEqualTypeOf<Promise<WebhookDeliveryDetail>>()
    expectTypeOf<PostwireClient["Service"]["posts"]["list"]>().returns.toEqualTypeOf<
      Effect.Effect<ListPage<Post>, PostwireClientError>
    >()
    // @ts-expect-error the streams of the Effect client are not part of the Promise client: `for await` over `list` does it
    expectTypeOf(postwire.posts.listAll).toBeFunction()
    // @ts-expect-error the steps of a resumable upload are inside media.upload
    expectTypeOf(postwire.media.createUpload).toBeFunction()
    // @ts-expect-error the delivery log is under webhooks.deliveries
    expectTypeOf(postwire.webhooks.listDeliveries).toBeFunction()
  })
})
