import { describe, expect, it } from "vitest"
import { Postwire, PostwireApiError } from "@postwire/client"
import { defaultBaseUrl } from "../src/internal/options.ts"
import { FIXTURE_API_KEY } from "./fixtures/FakePostwire.ts"
import { aPost } from "./fixtures/builders.ts"
import { aCreatePostBody, clientFor, useFakePostwire } from "./fixtures/client.ts"

const fake = useFakePostwire()

describe("Postwire", () => {
  describe("every request", () => {
    it("carries Authorization: Bearer <apiKey>, the client's User-Agent and Accept: application/json", async () => {
      const postwire = clientFor(fake.current)

      await postwire.posts.create(aCreatePostBody())
      await postwire.accounts.list()

      expect(fake.current.requests).toHaveLength(2)
      for (const request of fake.current.requests) {
        expect(request.headers.authorization).toBe(`Bearer ${FIXTURE_API_KEY}`)
        expect(request.headers["user-agent"]).toBe("@postwire/client")
        expect(request.headers.accept).toBe("application/json")
      }
    })

    it("carries the userAgent and Accept-Language chosen for the client", async () => {
      await clientFor(fake.current, { userAgent: "acme-scheduler/2.1", locale: "id" }).profiles.list()

      expect(fake.current.requests[0]?.headers["user-agent"]).toBe("acme-scheduler/2.1")
      expect(fake.current.requests[0]?.headers["accept-language"]).toBe("id")
    })

    it("is rejected with 401 unauthorized for a key the server does not know", async () => {
      const postwire = new Postwire({ apiKey: "svc_test_unknown", baseUrl: fake.current.url })

      await expect(postwire.accounts.list()).rejects.toMatchObject({ status: 401, code: "unauthorized" })
    })

    it("goes through the fetch given to the constructor", async () => {
      const seen: Array<string> = []
      const postwire = clientFor(fake.current, {
        fetch: (input, init) => {
          seen.push(String(input))
          return fetch(input, init)
        }
      })

      await postwire.profiles.list()

      expect(seen).toEqual([`${fake.current.url}/v1/profiles`])
    })
  })

  describe("baseUrl", () => {
    it("accepts the server's address with or without a trailing /v1", async () => {
      await new Postwire({ apiKey: FIXTURE_API_KEY, baseUrl: `${fake.current.url}/v1/` }).profiles.list()

      expect(fake.current.requests[0]?.path).toBe("/v1/profiles")
    })

    it("throws a TypeError naming baseUrl when it is not an http(s) address", () => {
      expect(() => new Postwire({ apiKey: FIXTURE_API_KEY, baseUrl: "ftp://example.com" })).toThrow(
        new TypeError("baseUrl must be an http or https address, got ftp:")
      )
      expect(() => new Postwire({ apiKey: FIXTURE_API_KEY, baseUrl: "not a url" })).toThrow(
        new TypeError('baseUrl must be an absolute http or https address, got "not a url"')
      )
      expect(() => new Postwire({ apiKey: FIXTURE_API_KEY, baseUrl: null } as never)).toThrow(
        new TypeError("baseUrl must be the server's http or https address, got null")
      )
    })

    it("defaults to POSTWIRE_BASE_URL, else to the server's default address http://localhost:8080", async () => {
      const saved = process.env.POSTWIRE_BASE_URL
      try {
        process.env.POSTWIRE_BASE_URL = fake.current.url
        await new Postwire({ apiKey: FIXTURE_API_KEY }).profiles.list()
        expect(fake.current.requests[0]?.path).toBe("/v1/profiles")

        process.env.POSTWIRE_BASE_URL = "localhost:8080"
        expect(() => new Postwire({ apiKey: FIXTURE_API_KEY })).toThrow(/^POSTWIRE_BASE_URL \(the default baseUrl\) must be/)

        delete process.env.POSTWIRE_BASE_URL
        expect(defaultBaseUrl()).toBe("http://localhost:8080")
      } finally {
        if (saved === undefined) delete process.env.POSTWIRE_BASE_URL
        else process.env.POSTWIRE_BASE_URL = saved
      }
    })
  })

  describe("other options", () => {
    it("throw a TypeError naming the option, and never echo the key", () => {
      const make = (options: Record<string, unknown>) => () => new Postwire({ baseUrl: fake.current.url, ...options } as never)
      expect(make({ apiKey: "" })).toThrow(/^apiKey must be an API key .* got an empty string$/)
      expect(make({ apiKey: "svc_test_secret\n" })).toThrow(/^apiKey must be .* got one with spaces, line breaks/)
      expect(make({ apiKey: "svc_test_secret\n" })).not.toThrow(/secret/)
      expect(make({ apiKey: 42 })).toThrow(/^apiKey must be .* got 42$/)
      expect(make({ apiKey: FIXTURE_API_KEY, maxRetries: -1 })).toThrow("maxRetries must be a whole number of 0 or more, got -1")
      expect(make({ apiKey: FIXTURE_API_KEY, maxRetries: 1.5 })).toThrow(/^maxRetries must be/)
      expect(make({ apiKey: FIXTURE_API_KEY, locale: "fr" })).toThrow('locale must be "en" or "id", got "fr"')
      expect(make({ apiKey: FIXTURE_API_KEY, userAgent: "a\r\nb" })).toThrow(/^userAgent must be/)
      expect(make({ apiKey: FIXTURE_API_KEY, fetch: "fetch" })).toThrow(/^fetch must be a function/)
      expect(() => new Postwire(undefined as never)).toThrow(/^options must be an object/)
    })

    it("take no apiKey for a client that only decides approvals; keyed calls then answer 401", async () => {
      const postwire = new Postwire({ baseUrl: fake.current.url })

      await expect(postwire.accounts.list()).rejects.toMatchObject({ status: 401, code: "unauthorized" })
      expect(fake.current.requests[0]?.headers.authorization).toBeUndefined()
    })
  })

  describe("posts", () => {
    it("create sends the body as given and resolves with the 201 answer", async () => {
      const body = { ...aCreatePostBody(), scheduled_at: "2026-11-22T09:00:00+07:00", approval: { mode: "link" as const } }

      const created = await clientFor(fake.current).posts.create(body)

      expect(fake.current.requestsTo("POST", "/v1/posts")[0]?.body).toEqual(body)
      expect(created.caption).toBe(body.caption)
      expect(created.status).toBe("awaiting_approval")
      expect(created.approval?.url).toMatch(/\/approve\//)
    })

    it("create leaves out fields set to undefined, as JSON does", async () => {
      await clientFor(fake.current).posts.create({ ...aCreatePostBody(), scheduled_at: undefined } as never)

      expect(fake.current.requests[0]?.body).toEqual(aCreatePostBody())
    })

    it("validate resolves with the issues found", async () => {
      const result = await clientFor(fake.current).posts.validate(aCreatePostBody())

      expect(result).toEqual({ issues: [] })
      expect(fake.current.requests[0]?.path).toBe("/v1/posts/validate")
    })

    it("get, update, cancel and retry address the post by id", async () => {
      const post = aPost({ status: "failed" })
      fake.current.posts = [post]
      const postwire = clientFor(fake.current)

      expect(await postwire.posts.get(post.id)).toEqual(post)
      expect((await postwire.posts.update(post.id, { caption: "Baru" })).caption).toBe("Baru")
      expect((await postwire.posts.cancel(post.id)).status).toBe("cancelled")
      expect((await postwire.posts.retry(post.id)).data).toEqual(post.targets)
      expect(fake.current.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        `GET /v1/posts/${post.id}`,
        `PATCH /v1/posts/${post.id}`,
        `POST /v1/posts/${post.id}/cancel`,
        `POST /v1/posts/${post.id}/retry`
      ])
      expect(fake.current.requests[1]?.body).toEqual({ caption: "Baru" })
    })
  })

  describe("requests that break the contract", () => {
    it("are rejected before sending with 400 invalid_request naming the field", async () => {
      const body = { ...aCreatePostBody(), targets: [{ account_id: "prof_not_an_account" }] }

      const error = await clientFor(fake.current)
        .posts.create(body)
        .catch((e: unknown) => e)

      expect(error).toBeInstanceOf(PostwireApiError)
      expect(error).toMatchObject({
        status: 400,
        code: "invalid_request",
        field: "targets[0].account_id",
        retryable: false,
        docs: `${fake.current.url}/docs/errors#invalid_request`
      })
      expect((error as PostwireApiError).messageId).toMatch(/^Permintaan tidak valid pada targets\[0\]\.account_id/)
      expect(fake.current.requests).toHaveLength(0)
    })

    it("report an unknown field, so that a typo is not silently lost", async () => {
      const body = { ...aCreatePostBody(), captoin: "typo" }

      await expect(clientFor(fake.current).posts.validate(body as never)).rejects.toMatchObject({
        code: "invalid_request",
        field: "captoin"
      })
    })

    it("report a limit out of range on a list", async () => {
      await expect(clientFor(fake.current).posts.list({ limit: 500 })).rejects.toMatchObject({
        code: "invalid_request",
        field: "limit"
      })
    })

    it("report an empty id instead of calling the list endpoint", async () => {
      await expect(clientFor(fake.current).posts.get("")).rejects.toMatchObject({ code: "invalid_request", field: "id" })
      expect(fake.current.requests).toHaveLength(0)
    })
  })

  describe("media", () => {
    it("upload sends bytes base64-encoded with the file name", async () => {
      const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

      const media = await clientFor(fake.current).media.upload({ data: bytes, filename: "pixel.png" })

      expect(fake.current.requests[0]?.body).toEqual({ data: "iVBORw0KGgo=", filename: "pixel.png" })
      expect(media.filename).toBe("pixel.png")
    })

    it("upload sends a base64 string as it is", async () => {
      await clientFor(fake.current).media.upload({ data: "iVBORw0KGgo=" })

      expect(fake.current.requests[0]?.body).toEqual({ data: "iVBORw0KGgo=" })
    })

    it("get returns the media item", async () => {
      const media = await clientFor(fake.current).media.get("med_01JD0000000000000000000001")

      expect(media.id).toBe("med_01JD0000000000000000000001")
    })
  })

  describe("accounts and profiles", () => {
    it("list and get answer with the contract's shapes", async () => {
      const postwire = clientFor(fake.current)

      const accounts = await postwire.accounts.list({ platform: "shortvideo" })
      const account = await postwire.accounts.get("acc_01JD0000000000000000000009")
      const profiles = await postwire.profiles.list({ limit: 10 })

      expect(accounts.data[0]?.quota).toEqual({ used: 3, limit: 15, resets_at: "2026-11-23T00:00:00.000Z" })
      expect(account.id).toBe("acc_01JD0000000000000000000009")
      expect(profiles.data).toHaveLength(1)
      expect(fake.current.requests[0]?.query.get("platform")).toBe("shortvideo")
      expect(fake.current.requests[2]?.query.get("limit")).toBe("10")
    })
  })
})
