/**
 * Each platform's own refusal reasons live in its folder (`PlatformPlugin.reasons`), not in the
 * shared catalogue: every text has both languages with the same placeholders, and the Indonesian
 * message it completes holds no English word (as the shared reasons' test checks for them).
 */
import { ErrorDetail, fillPlaceholders, renderMessage } from "@postwire/domain"
import { Registry } from "@postwire/platforms"
import { describe, expect, it } from "vitest"
import { englishWord, prose } from "../../../packages/domain/test/Indonesian.ts"

const placeholders = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)

const reasons = Registry.builtins.flatMap((plugin) =>
  Object.entries(plugin.reasons ?? {}).map(([name, text]) => ({ platform: plugin.name, name, text }))
)

describe("the built-in platforms' own refusal reasons", () => {
  it("are carried by each plugin, none left in the shared catalogue", () => {
    for (const plugin of Registry.builtins) expect(Object.keys(plugin.reasons ?? {}).length, plugin.name).toBeGreaterThan(0)
    const shared = new Set(Object.keys(ErrorDetail.reasons))
    expect(reasons.filter((r) => shared.has(r.name)).map((r) => r.name)).toEqual([])
    expect(new Set(reasons.map((r) => r.name)).size).toBe(reasons.length)
  })

  it.each(reasons.map((r) => [`${r.platform}: ${r.name}`, r] as const))("%s has both texts, and an Indonesian message", (_, { platform, text }) => {
    expect(ErrorDetail.textProblem(text)).toBeUndefined()
    const values = Object.fromEntries(placeholders(text.en).map((p) => [p, 7]))
    const detail = { en: fillPlaceholders(text.en, "en", values), id: fillPlaceholders(text.id, "id", values) }
    const indonesian = renderMessage("media_invalid", "id", { platform, detail })
    expect(prose(indonesian), indonesian).not.toMatch(englishWord)
    expect(indonesian).not.toMatch(/[{}]/)
    expect(renderMessage("media_invalid", "en", { platform, detail })).toContain(text.en.replace(/\{\w+\}/g, "7"))
  })

  it("a plugin's reasons are checked when it is registered", () => {
    const plugin = (reasons: unknown) => ({ ...Registry.builtins[0]!, name: "blog", reasons })
    expect(() => Registry.make([plugin({ word: { en: "the word {word}", id: "kata" } }) as never])).toThrow(
      /`reasons.word` its English and Indonesian texts hold different \{placeholders\}/
    )
    expect(() => Registry.make([plugin({ word: "the word" }) as never])).toThrow(/`reasons.word` must be a text in English and Indonesian/)
    expect(Registry.make([plugin({ word: { en: "the word {word}", id: "kata {word}" } }) as never]).get("blog")).toBeDefined()
  })
})
