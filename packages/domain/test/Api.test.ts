/**
 * The contract is written one endpoint group per file: `Api.ts` composes the groups and adds
 * what belongs to the whole document (its errors, parse options, shared OpenAPI text), and every
 * `*Group.ts` file is one group of it. A group written in `Api.ts`, or a group file left out of
 * the API, fails here.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Api } from "../src/Api.ts"

const sources = join(import.meta.dirname, "..", "src")
const groupFiles = readdirSync(sources).filter((file) => file.endsWith("Group.ts"))

/** The groups of the composed API, by identifier (composing adds the API's middleware to each). */
const composed = (Api as unknown as { readonly groups: Readonly<Record<string, unknown>> }).groups

describe("Api", () => {
  it("declares no endpoint or group of its own", () => {
    const text = readFileSync(join(sources, "Api.ts"), "utf8")
    expect(text).not.toMatch(/HttpApiEndpoint\.|HttpApiGroup\.make/)
  })

  it("is made of exactly the groups of the *Group.ts files, each once", async () => {
    const fromFiles = await Promise.all(
      groupFiles.map(async (file) => {
        const module = (await import(join(sources, file))) as Record<string, unknown>
        const groups = Object.entries(module).filter(([name]) => name.endsWith("Group"))
        // One group per file, named after it.
        expect(groups.map(([name]) => name), file).toEqual([file.replace(/\.ts$/, "")])
        return (groups[0]![1] as { readonly identifier: string }).identifier
      })
    )
    expect(groupFiles).toHaveLength(10)
    expect([...fromFiles].sort()).toEqual(Object.keys(composed).sort())
  })
})
