import { builtinDisplayNames, TargetRules } from "@postwire/domain"
import { Registry } from "@postwire/platforms"
import { describe, expect, it } from "vitest"

const registry = Registry.make()
/** The facts of a target on a built-in platform, with that platform's rules (its plugin's). */
const on = (platform: string, facts: Partial<Omit<TargetRules.TargetFacts, "platform" | "rules">> = {}): TargetRules.TargetFacts => ({
  platform: platform as TargetRules.TargetFacts["platform"],
  rules: Registry.plugin(registry, platform).rules,
  ...facts
})

const image: TargetRules.MediaFacts = { kind: "image", durationSeconds: null }
const video = (seconds: number | null): TargetRules.MediaFacts => ({ kind: "video", durationSeconds: seconds })
const images = (n: number) => Array.from({ length: n }, () => image)

describe("the built-in platforms' rules (TargetRules through each plugin)", () => {
  it("takes media counts from the platform's rules: one more than mediaMax is refused on every platform that counts", () => {
    expect(Registry.plugin(registry, "photo").rules.mediaMax).toBe(10)
    expect(TargetRules.mediaRuleBreak(on("photo"), images(10))).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("photo"), images(11))).toMatchObject({
      code: "media_invalid",
      rule: "feed_item_count",
      details: { platform: "photo", detail: { en: "a feed post takes 1 to 10 images or videos" } }
    })
    expect(TargetRules.mediaRuleBreak(on("pages"), images(11))?.rule).toBe("page_images_max")
    expect(TargetRules.mediaRuleBreak(on("textpost"), images(21))?.details.detail).toEqual({
      en: "a post takes at most 20 images or videos",
      id: "unggahan berisi paling banyak 20 gambar atau video"
    })
    // Threads and Pages publish text alone; a feed post needs an item.
    expect(TargetRules.mediaRuleBreak(on("textpost"), [])).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("pages"), [])).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("photo", { options: { type: "feed" } }), [])?.rule).toBe("feed_item_count")
    expect(TargetRules.mediaRuleBreak(on("shortvideo"), [video(10), video(10)])?.rule).toBe("shortvideo_one_video")
  })

  it("takes any Facebook Page video up to 20 minutes (a reel or a Page video), rounding the reported length up", () => {
    expect(TargetRules.mediaRuleBreak(on("pages"), [video(90)])).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("pages"), [video(2.9)])).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("pages"), [video(1200)])).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("pages"), [video(1200.2)])).toEqual({
      code: "media_too_long",
      rule: "page_video_max_duration",
      field: "media[0]",
      details: { duration: 1201, limit: 1200 }
    })
    // A length that could not be read is left to the platform.
    expect(TargetRules.mediaRuleBreak(on("pages"), [video(null)])).toBeUndefined()
  })

  it("holds a shortvideo to the account's limit, 600 s unless it says otherwise", () => {
    expect(TargetRules.mediaRuleBreak(on("shortvideo"), [video(600)])).toBeUndefined()
    expect(TargetRules.mediaRuleBreak(on("shortvideo"), [video(601)])?.details).toEqual({ duration: 601, limit: 600 })
    expect(TargetRules.mediaRuleBreak(on("shortvideo", { maxVideoSeconds: 60 }), [video(61)])?.details).toEqual({
      duration: 61,
      limit: 60
    })
  })

  it("resolves the photo type: asked for, else a reel for one video, else a feed post", () => {
    expect(TargetRules.photoType(undefined, [video(10)])).toBe("reel")
    expect(TargetRules.photoType(undefined, [video(10), image])).toBe("feed")
    expect(TargetRules.photoType("story", [video(10)])).toBe("story")
  })

  it("refuses branded content posted privately, and only that", () => {
    expect(TargetRules.consentRuleBreak({ privacy_level: "SELF_ONLY", branded_content: true })).toEqual({
      code: "privacy_level_mismatch",
      rule: "branded_content_private",
      field: "consent.privacy_level",
      details: {}
    })
    expect(TargetRules.consentRuleBreak({ privacy_level: "SELF_ONLY" })).toBeUndefined()
    expect(TargetRules.consentRuleBreak({ privacy_level: "FOLLOWER_OF_CREATOR", branded_content: true })).toBeUndefined()
  })

  it("keeps the wire enum's display names equal to the built-in plugins' names", () => {
    expect(Object.keys(builtinDisplayNames).sort()).toEqual(Registry.builtins.map((plugin) => plugin.name).sort())
    for (const plugin of Registry.builtins) {
      expect(builtinDisplayNames[plugin.name as keyof typeof builtinDisplayNames]).toBe(plugin.displayName)
    }
  })
})
