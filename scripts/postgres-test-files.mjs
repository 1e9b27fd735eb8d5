#!/usr/bin/env node
/**
 * Prints the test files that have something to run on PostgreSQL: those that read
 * `DATABASE_URL` themselves, and those that reach `test/support/TestServer.ts` (its `backends()`)
 * or `test/support/Postgres.ts` (`onPostgres`, `freshSchema`) through their relative imports,
 * directly or through other helpers. CI's second pass runs these files only, with
 * `POSTWIRE_TEST_BACKENDS=postgres`, so the embedded variants, already run by the first pass
 * (`npm test` with no environment), do not run twice.
 *
 * `--check` prints nothing and fails if a file that mentions PostgreSQL in a way this script does
 * not follow (a `postgres` backend named outside the two helpers) would be left out.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(dirname(new URL(import.meta.url).pathname), "..")
const roots = ["test", "examples", ...readdirSync(join(root, "packages")).map((p) => join("packages", p, "test"))]
const targets = new Set(["test/support/TestServer.ts", "test/support/Postgres.ts"].map((p) => join(root, p)))

const walk = (dir) =>
  !existsSync(dir)
    ? []
    : readdirSync(dir).flatMap((name) => {
        if (name === "node_modules" || name === "dist") return []
        const path = join(dir, name)
        return statSync(path).isDirectory() ? walk(path) : [path]
      })

const importPattern = /(?:import|export)[^"'`]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g

/** The files a module imports by relative path, resolved to existing files. */
const importsOf = (file) => {
  const text = readFileSync(file, "utf8")
  const found = []
  for (const match of text.matchAll(importPattern)) {
    const spec = match[1] ?? match[2]
    const base = resolve(dirname(file), spec)
    const candidate = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")].find(
      (path) => existsSync(path) && statSync(path).isFile()
    )
    if (candidate !== undefined) found.push(candidate)
  }
  return found
}

const reaches = new Map()
const reachesPostgres = (file, seen = new Set()) => {
  if (targets.has(file)) return true
  if (reaches.has(file)) return reaches.get(file)
  if (seen.has(file)) return false
  seen.add(file)
  const result = importsOf(file).some((next) => reachesPostgres(next, seen))
  reaches.set(file, result)
  return result
}

const testFiles = roots.flatMap((dir) => walk(join(root, dir))).filter((path) => path.endsWith(".test.ts"))
const selected = testFiles.filter(
  (file) => readFileSync(file, "utf8").includes("DATABASE_URL") || reachesPostgres(file)
)

if (process.argv.includes("--check")) {
  const left = testFiles.filter(
    (file) => !selected.includes(file) && /["']postgres["']/.test(readFileSync(file, "utf8"))
  )
  if (left.length > 0) {
    console.error(`These name a postgres backend but reach neither helper:\n${left.map((f) => relative(root, f)).join("\n")}`)
    process.exit(1)
  }
} else {
  console.log(selected.map((file) => relative(root, file)).sort().join("\n"))
}
