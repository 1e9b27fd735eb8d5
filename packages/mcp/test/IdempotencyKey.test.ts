import { describe, expect, it } from "vitest"
import * as IdempotencyKey from "../src/IdempotencyKey.ts"

describe("IdempotencyKey.derive", () => {
  it("gives the same call the same key, whatever the order of its arguments' keys", () => {
    const a = IdempotencyKey.derive("create_post", { caption: "Hi", media: ["med_1"], approval: { mode: "link", notify: { locale: "id" } } })
    const b = IdempotencyKey.derive("create_post", { approval: { notify: { locale: "id" }, mode: "link" }, media: ["med_1"], caption: "Hi" })
    expect(a).toBe(b)
    expect(a).toMatch(/^mcp_[0-9a-f]{48}$/)
  })

  it("gives another tool, other arguments or another order of a list another key", () => {
    const base = IdempotencyKey.derive("cancel_post", { id: "post_1" })
    expect(IdempotencyKey.derive("retry_post", { id: "post_1" })).not.toBe(base)
    expect(IdempotencyKey.derive("cancel_post", { id: "post_2" })).not.toBe(base)
    expect(IdempotencyKey.derive("create_post", { media: ["a", "b"] })).not.toBe(IdempotencyKey.derive("create_post", { media: ["b", "a"] }))
  })
})
