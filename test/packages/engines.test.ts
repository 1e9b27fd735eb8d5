/**
 * The Node.js versions Postwire says it supports, checked against what is installed: the README's
 * statement, every package's `engines`, the Node.js this suite runs on, and the installed
 * dependencies that declare a newer Node.js (each one `npm install` warns `EBADENGINE` for on the
 * oldest supported version), which must be exactly the ones the README names. No source file
 * loads the one part of them that needs the newer Node.js (undici's HTTP client).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import semver from "semver"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>
const readme = readFileSync(join(root, "README.md"), "utf8")

/** The README's section on Node.js versions. */
const section = (() => {
  const start = readme.indexOf("## Node.js versions")
  expect(start, "README.md has a section ## Node.js versions").toBeGreaterThan(-1)
  const end = readme.indexOf("\n## ", start + 3)
  return readme.slice(start, end < 0 ? undefined : end)
})()

/** The oldest Node.js the README states, as a version: "20.19 or later" is 20.19.0. */
const stated = (() => {
  const match = /\*\*Node\.js (\d+)\.(\d+) or later\*\*/.exec(section)
  if (match === null) throw new Error("README.md's ## Node.js versions states no **Node.js X.Y or later**")
  return { version: `${match[1]}.${match[2]}.0`, range: `>=${match[1]}.${match[2]}` }
})()

const workspacePackages = readdirSync(join(root, "packages")).map((name) => ({ name, json: readJson(join(root, "packages", name, "package.json")) }))

/** Every installed package (nested copies too) whose `engines.node` the stated version does not satisfy. */
const newerThanStated = (): Map<string, string> => {
  const found = new Map<string, string>()
  const walk = (dir: string) => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".")) continue
      if (entry.startsWith("@")) {
        walk(join(dir, entry))
        continue
      }
      const file = join(dir, entry, "package.json")
      if (existsSync(file)) {
        const json = readJson(file)
        const range = json.engines?.node
        if (typeof range === "string" && semver.validRange(range) !== null && !semver.satisfies(stated.version, range)) found.set(json.name, range)
      }
      walk(join(dir, entry, "node_modules"))
    }
  }
  walk(join(root, "node_modules"))
  return found
}

describe("the supported Node.js versions", () => {
  it("are one statement: the README, the root and every package's engines, and the packages' READMEs agree", () => {
    expect(stated.range).toBe(">=20.19")
    expect(readJson(join(root, "package.json")).engines?.node).toBe(stated.range)
    for (const { name, json } of workspacePackages) {
      // The verifier is plain code for any runtime: its README says Node.js 18 and edge runtimes.
      const expected = name === "webhooks" ? ">=18" : stated.range
      expect(json.engines?.node, `packages/${name}/package.json engines.node`).toBe(expected)
    }
    for (const name of ["core", "domain", "server"]) {
      expect(readFileSync(join(root, "packages", name, "README.md"), "utf8"), `packages/${name}/README.md`).toContain("Node.js 20.19 or later")
    }
    expect(readFileSync(join(root, "packages", "webhooks", "README.md"), "utf8")).toContain("Node.js ≥ 18")
  })

  it("include the Node.js this suite runs on", () => {
    expect(semver.satisfies(process.versions.node, stated.range), `Node.js ${process.versions.node} against ${stated.range}`).toBe(true)
  })

  it("name in the README exactly the installed dependencies that declare a newer Node.js, with the range each declares", () => {
    const listed = new Map([...section.matchAll(/^- `([^`]+)` \(declares `([^`]+)`\)/gm)].map((match) => [match[1]!, match[2]!]))
    expect(listed.size).toBeGreaterThan(0)
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(newerThanStated()))
  })

  it("are enough for what the sources load: nothing imports undici or Effect's undici HTTP client", () => {
    const offenders: Array<string> = []
    const scan = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) scan(path)
        else if (entry.name.endsWith(".ts") && /from "(undici|@effect\/platform-node\/NodeHttpClient)"|layerUndici/.test(readFileSync(path, "utf8"))) {
          offenders.push(path.slice(root.length + 1))
        }
      }
    }
    for (const { name } of workspacePackages) scan(join(root, "packages", name, "src"))
    expect(offenders).toEqual([])
  })
})
