/**
 * Deliverable 2 of issue #43, checked: the import graph runs one way, between the packages and
 * inside them. Every import of every `packages/*\/src` file is read (parsed with TypeScript: comments
 * and strings that look like imports are not imports) and held against two tables:
 *
 * - {@link packages}: which `@postwire/*` packages each package may import;
 * - {@link floors}: the floors inside a package, bottom first. A file belongs to the highest floor
 *   that names it; it may import files of its own floor or of a floor below, never above.
 *
 * The floors are the tables of `docs/architecture.md` ("The floors inside a package"), read here,
 * so the documented floors and the checked ones cannot differ. A new folder or root file is on no floor until it
 * is added there: the test names it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, posix, relative } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "../..")

/** The `@postwire/*` packages each package's sources may import (`docs/architecture.md`, "The packages"). */
const packages: Readonly<Record<string, ReadonlyArray<string>>> = {
  domain: [],
  webhooks: [],
  core: ["domain"],
  "store-sql": ["core", "domain"],
  platforms: ["core", "domain"],
  client: ["domain"],
  mcp: ["client", "domain"],
  server: ["core", "domain", "mcp", "platforms", "store-sql"]
}

/**
 * One floor: its name and what is on it, as paths from the package's `src/`: a folder
 * (`posts/`), a file (`Caller.ts`), or a file name anywhere (`** /Memory*.ts`, written without the
 * space).
 */
interface Floor {
  readonly name: string
  readonly holds: ReadonlyArray<string>
}

const architecture = readFileSync(join(root, "docs/architecture.md"), "utf8")

/**
 * The floors of a package, bottom first, read from the table that follows
 * `<!-- floors: <package> -->` in `docs/architecture.md`: one row per floor, `number name` in the
 * first cell, the members in backticks in the second.
 */
const floorsIn = (pkg: string): ReadonlyArray<Floor> => {
  const marker = `<!-- floors: ${pkg} -->`
  const at = architecture.indexOf(marker)
  if (at < 0) throw new Error(`docs/architecture.md has no table after ${marker}`)
  const rows = architecture
    .slice(at + marker.length)
    .trimStart()
    .split("\n")
  const table = rows.slice(0, rows.findIndex((row) => !row.startsWith("|")))
  const floors = table.flatMap((row) => {
    const [floor = "", members = ""] = row.split("|").slice(1).map((cell) => cell.trim())
    const named = /^(\d+) (.+)$/.exec(floor)
    if (named === null) return []
    return [{ index: Number(named[1]), name: named[2]!, holds: [...members.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) }]
  })
  const sorted = [...floors].sort((a, b) => a.index - b.index)
  sorted.forEach((floor, index) => {
    if (floor.index !== index) throw new Error(`docs/architecture.md, floors of ${pkg}: expected floor ${index}, found ${floor.index}`)
  })
  return sorted
}

/** The floors inside a package, bottom first (`docs/architecture.md`, "The floors inside a package"). */
const floors: Readonly<Record<string, ReadonlyArray<Floor>>> = { core: floorsIn("core"), server: floorsIn("server") }

const holds = (pattern: string, path: string): boolean => {
  if (pattern.startsWith("**/")) {
    const name = posix.basename(path)
    const [prefix, suffix] = pattern.slice(3).split("*") as [string, string | undefined]
    return suffix === undefined ? name === prefix : name.startsWith(prefix) && name.endsWith(suffix)
  }
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern
}

/** The floor (index, bottom first) of a file of a package, by its path from `src/`. */
const floorOf = (pkg: string, path: string): number | undefined => {
  const table = floors[pkg]
  if (table === undefined) return undefined
  for (let index = table.length - 1; index >= 0; index--) {
    if (table[index]!.holds.some((pattern) => holds(pattern, path))) return index
  }
  return undefined
}

/**
 * What is wrong with one import of a package's file (`from` and the resolved `to` are paths from
 * the package's `src/`), or `undefined` when it runs down or sideways.
 */
const backImport = (pkg: string, from: string, to: string): string | undefined => {
  const table = floors[pkg]
  if (table === undefined) return undefined
  const a = floorOf(pkg, from)
  const b = floorOf(pkg, to)
  if (a === undefined || b === undefined || b <= a) return undefined
  return `packages/${pkg}/src/${from} (floor "${table[a]!.name}") imports ${to} (floor "${table[b]!.name}", above it)`
}

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : []
  })

/** What a file imports: `import`, `export … from`, `import(…)` and `import("…").T` types. */
const specifiers = (file: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument !== undefined && ts.isStringLiteral(argument)) found.push(argument.text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest))
  return found
}

interface Import {
  readonly pkg: string
  /** The importing file, from the package's `src/`. */
  readonly from: string
  readonly specifier: string
}

const imports: ReadonlyArray<Import> = Object.keys(packages).flatMap((pkg) => {
  const src = join(root, "packages", pkg, "src")
  return sources(src).flatMap((file) => {
    const from = relative(src, file).split("\\").join("/")
    return specifiers(file).map((specifier) => ({ pkg, from, specifier }))
  })
})

/** A relative import resolved to a path from the package's `src/`; `undefined` when it leaves `src/`. */
const resolved = ({ from, specifier }: Import): string | undefined => {
  const path = posix.normalize(posix.join(posix.dirname(from), specifier))
  return path.startsWith("../") ? undefined : path
}

describe("the import graph", () => {
  it("reads the imports of every package", () => {
    for (const pkg of Object.keys(packages)) {
      expect(imports.filter((i) => i.pkg === pkg).length, pkg).toBeGreaterThan(0)
    }
  })

  it("runs down between packages: each imports only the packages below it", () => {
    const wrong = imports.flatMap(({ pkg, from, specifier }) => {
      const name = /^@postwire\/([^/]+)/.exec(specifier)?.[1]
      if (name === undefined || packages[pkg]!.includes(name)) return []
      return [`packages/${pkg}/src/${from} imports ${specifier}: ${pkg} may import ${packages[pkg]!.join(", ") || "no package of ours"}`]
    })
    expect(wrong).toEqual([])
  })

  it("stays inside its package: a relative import never leaves the package's src/", () => {
    const leaving = imports.flatMap((i) =>
      i.specifier.startsWith(".") && resolved(i) === undefined ? [`packages/${i.pkg}/src/${i.from} imports ${i.specifier}`] : []
    )
    expect(leaving).toEqual([])
  })

  for (const pkg of Object.keys(floors)) {
    const files = sources(join(root, "packages", pkg, "src")).map((file) =>
      relative(join(root, "packages", pkg, "src"), file).split("\\").join("/")
    )

    it(`puts every file of ${pkg} on a floor`, () => {
      expect(files.filter((file) => floorOf(pkg, file) === undefined)).toEqual([])
    })

    it(`runs down the floors of ${pkg}: no import runs back up`, () => {
      const upward = imports.flatMap((i) => {
        if (i.pkg !== pkg || !i.specifier.startsWith(".")) return []
        const to = resolved(i)
        const wrong = to === undefined ? undefined : backImport(pkg, i.from, to)
        return wrong === undefined ? [] : [wrong]
      })
      expect(upward).toEqual([])
    })
  }

  it("names the offending import, with both floors", () => {
    const nameOf = (path: string) => floors.core![floorOf("core", path)!]!.name
    expect(backImport("core", "posts/Posts.ts", "approvals/Approvals.ts")).toBe(
      `packages/core/src/posts/Posts.ts (floor "${nameOf("posts/Posts.ts")}") imports approvals/Approvals.ts (floor "${nameOf("approvals/Approvals.ts")}", above it)`
    )
    expect(backImport("core", "approvals/Approvals.ts", "posts/Posts.ts")).toBeUndefined()
    expect(floorOf("core", "store/MemoryState.ts")).toBe(floorOf("core", "memory/MemoryState.ts"))
    expect(floorOf("core", "store/MemoryState.ts")).toBeGreaterThan(floorOf("core", "posts/Posts.ts")!)
  })
})
