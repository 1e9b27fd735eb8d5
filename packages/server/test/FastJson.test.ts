import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { describe, expect, it } from "vitest"
import { Post } from "@postwire/domain"
import * as FastJson from "../src/http/FastJson.ts"

// Values as the views build them: some keys in another order than the schema's, an error with
// details and issues, options on both platforms, and a field the schema does not have.
const target = (over: Record<string, unknown> = {}) => ({
  options: { photo: { type: "feed" } },
  id: "tgt_1",
  account_id: "acc_1",
  platform: "photo",
  status: "scheduled",
  permalink: null,
  published_at: null,
  error: null,
  attempts: 0,
  ...over
})

const post = (over: Record<string, unknown> = {}) => ({
  id: "post_1",
  profile_id: "prof_1",
  caption: "Hello \"world\" \u2028 ✓",
  media: ["med_1", "med_2"],
  status: "awaiting_approval",
  scheduled_at: null,
  ai_generated: false,
  approval: {
    id: "apr_1",
    status: "pending",
    url: "https://example.com/approve/abc",
    expires_at: "2026-12-01T00:00:00.000Z",
    decided_at: null
  },
  targets: [
    target(),
    target({
      id: "tgt_2",
      platform: "shortvideo",
      status: "failed",
      attempts: 2,
      options: { shortvideo: { mode: "direct", consent: { disable_duet: true, privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true } } },
      error: {
        message: "The platform refused the video",
        code: "platform_error",
        message_id: "Platform menolak video",
        retryable: true,
        docs: "https://example.com/docs/errors#platform_error",
        platform_code: "spam_risk",
        target_id: "tgt_2",
        issues: [
          {
            code: "platform_error",
            message: "The platform refused the video",
            message_id: "Platform menolak video",
            retryable: true,
            docs: "https://example.com/docs/errors#platform_error"
          }
        ]
      }
    }),
    target({ id: "tgt_3", platform: "pages", status: "published", permalink: "https://p/1", published_at: "2026-11-01T00:00:00.000Z", options: {} })
  ],
  created_at: "2026-11-01T00:00:00.000Z",
  updated_at: "2026-11-02T00:00:00.000Z",
  internal_note: "not on the wire",
  ...over
})

const bySchema = <S extends Schema.Codec<unknown, unknown>>(schema: S, value: unknown) =>
  JSON.stringify(Effect.runSync(Schema.encodeUnknownEffect(schema)(value)))

const byCompiled = <S extends Schema.Top>(schema: S, value: unknown) => {
  const encode = FastJson.compile(schema)
  expect(encode).toBeDefined()
  return JSON.stringify(encode!(value as S["Type"]))
}

describe("FastJson", () => {
  it("writes a page of posts exactly as the schema's encoder does", () => {
    const page = {
      cursor: { has_more: true, next: "cur_abc" },
      data: [post(), post({ id: "post_2", approval: null, scheduled_at: "2026-12-01T09:00:00.000Z" }), post({ id: "post_3", targets: [] })]
    }
    const compiled = byCompiled(Post.PostList, page)
    expect(compiled).toBe(bySchema(Post.PostList, page))
    expect(compiled).not.toContain("internal_note")
    expect(compiled.indexOf('"targets"')).toBeLessThan(compiled.indexOf('"approval"'))
  })

  it("writes a post exactly as the schema's encoder does", () => {
    expect(byCompiled(Post.Post, post())).toBe(bySchema(Post.Post, post()))
    // A plugin's options sit beside the built-ins' under its own word, written as they are.
    const withPlugin = post({
      targets: [target({ id: "tgt_9", platform: "blog", options: { blog: { tone: "formal", tags: ["a"] } } })]
    })
    expect(byCompiled(Post.Post, withPlugin)).toBe(bySchema(Post.Post, withPlugin))
    expect(byCompiled(Post.Post, withPlugin)).toContain('"options":{"blog":{"tone":"formal","tags":["a"]}}')
    expect(byCompiled(Post.Post, post({ approval: null }))).toBe(bySchema(Post.Post, post({ approval: null })))
  })

  it("does not compile a schema with a transformation, and then answers the value itself", () => {
    const Transformed = Schema.Struct({ n: Schema.NumberFromString })
    expect(FastJson.compile(Transformed)).toBeUndefined()
    expect(FastJson.responder(Transformed)({ n: 1 })).toEqual({ n: 1 })
  })

  it("answers a compiled schema with a JSON response of the given status", () => {
    const response = FastJson.responder(Post.Post, 201)(post() as unknown as Post.Post)
    expect(HttpServerResponse.isHttpServerResponse(response)).toBe(true)
    const r = response as HttpServerResponse.HttpServerResponse
    expect(r.status).toBe(201)
    expect(r.body._tag).toBe("Uint8Array")
  })
})
