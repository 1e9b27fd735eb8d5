#!/usr/bin/env node
// Runs the built CLI when the package is built; in a source checkout, runs the TypeScript
// sources through tsx so that `npm install && npx postwire serve` works without a build.
import { existsSync } from "node:fs"
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const built = join(here, "..", "dist", "cli.js")
if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  const source = join(here, "..", "src", "cli", "main.ts")
  const tsx = import.meta.resolve("tsx")
  const result = spawnSync(
    process.execPath,
    ["--conditions=@postwire/source", "--import", tsx, source, ...process.argv.slice(2)],
    { stdio: "inherit" }
  )
  process.exit(result.status ?? 1)
}
