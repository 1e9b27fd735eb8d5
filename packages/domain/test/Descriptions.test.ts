/**
 * The words of the API reference and of the SDK's hover text are the same: every schema field
 * whose description is written beside it also carries it as its JSDoc, word for word (TypeScript
 * shows a field's JSDoc through the types derived from the schema; OpenAPI shows the annotation).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const sources = join(import.meta.dirname, "..", "src")

/** The string literals given as `description` anywhere inside a node. */
const descriptionsIn = (node: ts.Node): Array<string> => {
  const found: Array<string> = []
  const visit = (n: ts.Node) => {
    if (ts.isPropertyAssignment(n) && n.name.getText() === "description" && ts.isStringLiteral(n.initializer)) {
      found.push(n.initializer.text)
    }
    ts.forEachChild(n, visit)
  }
  visit(node)
  return found
}

/** Each field with a description of its own: its place, its description, and its JSDoc. */
const describedFields = (file: string) => {
  const source = ts.createSourceFile(file, readFileSync(join(sources, file), "utf8"), ts.ScriptTarget.Latest, true)
  const fields: Array<{ at: string; description: string; jsDoc: string | undefined }> = []
  const visit = (node: ts.Node) => {
    // A property holding an object literal (`params: { token }`) is not a field: its properties are.
    if (ts.isPropertyAssignment(node) && node.name.getText() !== "description" && !ts.isObjectLiteralExpression(node.initializer)) {
      const descriptions = descriptionsIn(node.initializer)
      // A field holding a nested struct carries its children's descriptions too: only one is its own.
      if (descriptions.length === 1 && !node.initializer.getText().includes("Schema.Struct(")) {
        const jsDoc = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).at(-1)
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1
        fields.push({ at: `${file}:${line} ${node.name.getText()}`, description: descriptions[0] ?? "", jsDoc: ts.getTextOfJSDocComment(jsDoc?.comment) })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return fields
}

describe("schema descriptions", () => {
  const fields = readdirSync(sources)
    // The create examples are request bodies, not schemas: a LinkedIn article's `description` is data.
    .filter((f) => f.endsWith(".ts") && f !== "PostExamples.ts")
    .flatMap(describedFields)

  it("are found in the domain's sources", () => {
    expect(fields.length).toBeGreaterThan(100)
  })

  it("repeat each field's description as its JSDoc, word for word", () => {
    const differing = fields.filter((f) => f.jsDoc !== f.description).map((f) => `${f.at}: ${f.jsDoc === undefined ? "no JSDoc" : "JSDoc differs"}`)
    expect(differing).toEqual([])
  })
})
