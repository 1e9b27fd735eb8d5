/** Rich-text facets on UTF-8 byte offsets, TIDs and the text's two limits. */
import { assert, describe, it } from "vitest"
import * as Facets from "../../../packages/platforms/src/atproto/Facets.ts"
import { byteLength, captionLength } from "../../../packages/platforms/src/atproto/Rules.ts"
import * as Tid from "../../../packages/platforms/src/atproto/Tid.ts"

const bytes = (text: string, facet: Facets.Facet) => Buffer.from(text, "utf8").subarray(facet.index.byteStart, facet.index.byteEnd).toString("utf8")

describe("Bluesky facets", () => {
  it("locates links, mentions and tags by UTF-8 bytes after emoji, accents and CJK", () => {
    const text = "👩‍👩‍👧 café 東京 @alice.example.com https://example.com/パン?q=1 #焼きたて #2024 (https://a.example/x)."
    const dids = new Map([["alice.example.com", "did:plc:alice"]])
    const facets = Facets.facets(text, Facets.detect(text), dids)
    assert.deepStrictEqual(
      facets.map((f) => [bytes(text, f), f.features[0]!.$type.split("#")[1]]),
      [
        ["@alice.example.com", "mention"],
        ["https://example.com/パン?q=1", "link"],
        ["#焼きたて", "tag"],
        ["https://a.example/x", "link"]
      ]
    )
    // The family emoji is 18 bytes, "café " 6, "東京 " 7: the mention starts at byte 19 + 6 + 7.
    assert.strictEqual(facets[0]!.index.byteStart, 32)
    assert.notStrictEqual(facets[0]!.index.byteStart, text.indexOf("@"), "not a UTF-16 index")
  })

  it("leaves an unresolved mention, a number-only tag and sentence punctuation out", () => {
    const text = "Ask @nobody.example.org about #1, see https://example.com."
    const facets = Facets.facets(text, Facets.detect(text), new Map())
    assert.deepStrictEqual(facets.map((f) => bytes(text, f)), ["https://example.com"])
  })

  it("counts graphemes and bytes as Bluesky does", () => {
    assert.strictEqual(captionLength("👍🏽 ok"), 4)
    assert.strictEqual(byteLength("👍🏽 ok"), 11)
    assert.strictEqual(captionLength("東京"), 2)
    assert.strictEqual(byteLength("東京"), 6)
  })

  it("makes TIDs of the spec's syntax that sort by time", () => {
    const a = Tid.make(1_700_000_000_000_000, 0)
    const b = Tid.make(1_700_000_000_000_001, 0)
    assert.match(a, Tid.pattern)
    assert.isTrue(a < b)
    assert.strictEqual(Tid.make(0, 0), "2222222222222")
  })
})
