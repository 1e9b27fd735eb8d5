import { describe, expect, it } from "vitest"
import { type Page, PagePromise, type Post } from "@postwire/client"
import { errorAnswer, somePosts } from "./fixtures/FakePostwire.ts"
import { clientFor, useFakePostwire } from "./fixtures/client.ts"

const fake = useFakePostwire()

describe("list pagination", () => {
  it("for await walks every page, following cursor.next, and stops at has_more: false", async () => {
    const queued = somePosts(7, "queued")
    fake.current.posts = [...somePosts(2, "published"), ...queued]
    fake.current.pageSize = 3

    const seen: Array<string> = []
    for await (const post of clientFor(fake.current).posts.list({ status: "queued" })) {
      seen.push(post.id)
    }

    expect(seen).toEqual(queued.map((post) => post.id))
    const requests = fake.current.requestsTo("GET", "/v1/posts")
    expect(requests).toHaveLength(3)
    expect(requests.map((request) => request.query.get("status"))).toEqual(["queued", "queued", "queued"])
    expect(requests[0]?.query.has("cursor")).toBe(false)
    expect(requests[1]?.query.get("cursor")).toEqual(expect.any(String))
    expect(requests[2]?.query.get("cursor")).not.toBe(requests[1]?.query.get("cursor"))
  })

  it("stops early without loading pages nobody asked for", async () => {
    fake.current.posts = somePosts(9, "queued")
    fake.current.pageSize = 3

    let count = 0
    for await (const _post of clientFor(fake.current).posts.list()) {
      if (++count === 4) break
    }

    expect(fake.current.requests).toHaveLength(2)
  })

  it("awaited, gives the first page with data and cursor; nextPage() loads the next, null after the last", async () => {
    fake.current.posts = somePosts(4, "scheduled")
    fake.current.pageSize = 3

    const first = await clientFor(fake.current).posts.list()
    const second = await first.nextPage()

    expect(first.data).toHaveLength(3)
    expect(first.cursor).toEqual({ next: expect.any(String), has_more: true })
    expect(first.hasMore).toBe(true)
    expect(second?.data.map((post) => post.id)).toEqual([fake.current.posts[3]?.id])
    expect(second?.cursor).toEqual({ next: null, has_more: false })
    expect(await second?.nextPage()).toBeNull()
    expect(fake.current.requests).toHaveLength(2)
  })

  it("for await over an awaited page continues from that page", async () => {
    fake.current.posts = somePosts(5, "queued")
    fake.current.pageSize = 2

    const second = (await (await clientFor(fake.current).posts.list()).nextPage()) as Page<Post>
    const rest: Array<string> = []
    for await (const post of second) rest.push(post.id)

    expect(rest).toEqual(fake.current.posts.slice(2).map((post) => post.id))
  })

  it("is a Promise", () => {
    const list = clientFor(fake.current).profiles.list()

    expect(list).toBeInstanceOf(Promise)
    expect(list).toBeInstanceOf(PagePromise)
    return list
  })

  it("rejects the iteration with the error of the page that failed, after the items before it", async () => {
    const [first, second] = somePosts(2, "queued")
    fake.current.answerNext(
      "GET",
      "/v1/posts",
      { status: 200, body: { data: [first, second], cursor: { next: "cursor_2", has_more: true } } },
      errorAnswer(400, { code: "invalid_cursor" })
    )

    const seen: Array<string> = []
    const iterate = async () => {
      for await (const post of clientFor(fake.current).posts.list()) seen.push(post.id)
    }

    await expect(iterate()).rejects.toMatchObject({ status: 400, code: "invalid_cursor" })
    expect(seen).toEqual([first?.id, second?.id])
    expect(fake.current.requests[1]?.query.get("cursor")).toBe("cursor_2")
  })
})
