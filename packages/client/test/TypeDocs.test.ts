/**
 * The SDK's types say what the API reference says: hovering a field in an editor shows the
 * description that `/docs` and the OpenAPI document show for it.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { OpenApi } from "effect/http-api"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { Api } from "@postwire/domain"

const file = join(import.meta.dirname, "fixtures", "hover.ts")
const text = readFileSync(file, "utf8")

const service = ts.createLanguageService({
  getScriptFileNames: () => [file],
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => (ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f) ?? "") : undefined),
  getCurrentDirectory: () => process.cwd(),
  getCompilationSettings: () => ({
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    customConditions: ["@postwire/source"]
  }),
  getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories
})

/** The documentation an editor shows when hovering the first `needle` after `after` in the fixture. */
const hover = (needle: string, after = ""): string => {
  const position = text.indexOf(needle, text.indexOf(after))
  const info = service.getQuickInfoAtPosition(file, position)
  return ts.displayPartsToString(info?.documentation)
}

const document = OpenApi.fromApi(Api) as Record<string, any>
const createBody = document.paths["/v1/posts"].post.requestBody.content["application/json"].schema
const postBody = document.paths["/v1/posts/{id}"].get.responses["200"].content["application/json"].schema

describe("the SDK's types on hover", () => {
  it("show a response field's description from the API reference", () => {
    expect(hover("permalink", "?.")).toBe(postBody.properties.targets.items.properties.permalink.description)
  })

  it("show a request field's description from the API reference", () => {
    expect(hover("scheduled_at", "export const body")).toBe(createBody.properties.scheduled_at.description)
    expect(hover("mode", "export const body")).toBe(createBody.properties.targets.items.properties.shortvideo.properties.mode.description)
  })
})
