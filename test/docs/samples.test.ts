/**
 * The extraction of the documentation's code blocks (test/docs/samples.ts), on the real Markdown:
 * no TypeScript block is lost or skipped silently, and tsc's diagnostics come back in the
 * documentation's terms. The blocks themselves are type-checked against the packed packages in
 * test/packages/consumer.test.ts.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { documentationFiles, inDocumentationTerms, root, typeScriptBlocks, typeScriptSamples } from "./samples.ts"

describe("the documentation's TypeScript samples", () => {
  it("reads the README, every page of docs/ and every package's README", () => {
    const files = documentationFiles()
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/embedding.md", "docs/media.md", "packages/core/README.md", "packages/webhooks/README.md"]))
  })

  it("turns every ts fence into a sample or an explicitly skipped block", () => {
    const fences = documentationFiles().reduce((count, file) => count + (readFileSync(join(root, file), "utf8").match(/^\s*```ts\s*$/gm) ?? []).length, 0)
    const { samples, skipped } = typeScriptSamples()
    expect(typeScriptBlocks()).toHaveLength(fences)
    expect(samples.length + skipped.length).toBe(fences)
    for (const block of skipped) expect(block.directive?.kind === "skip" && block.directive.reason.length > 0).toBe(true)
    // Each sample is a module of its own, so top-level await works and names do not collide.
    for (const sample of samples) expect(sample.text.endsWith("export {}\n")).toBe(true)
  })

  it("puts a prelude before its block and names the Markdown line in tsc's errors", () => {
    const { samples } = typeScriptSamples()
    const continued = samples.find((sample) => sample.block.file === "packages/client/README.md" && sample.text.includes("const endpoint ="))!
    expect(continued.offset).toBeGreaterThan(0)
    expect(continued.text.split("\n")[continued.offset]).toBe(continued.block.code.split("\n")[0])
    const first = continued.offset + 1
    const output = `docs-samples/${continued.name}(${first},7): error TS2304: Cannot find name 'x'.\ndocs-samples/${continued.name}(1,1): error TS1: in the prelude.`
    expect(inDocumentationTerms(output, samples, "/app/docs-samples").split("\n")).toEqual([
      `packages/client/README.md ts block ${continued.block.index} (line ${continued.block.line + 1}, column 7): error TS2304: Cannot find name 'x'.`,
      `packages/client/README.md ts block ${continued.block.index} (its typecheck prelude, column 1): error TS1: in the prelude.`
    ])
  })
})
