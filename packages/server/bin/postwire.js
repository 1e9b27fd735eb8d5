#!/usr/bin/env node
// Runs the built CLI when the package is built; in a source checkout, runs the TypeScript
// sources through tsx so that `npm install && npx postwire serve` works without a build.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const built = join(here, "..", "dist", "postwire.mjs")
if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  const source = join(here, "..", "src", "cli", "main.ts")
  const child = spawn(
    process.execPath,
    ["--conditions=@postwire/source", "--import", import.meta.resolve("tsx"), source, ...process.argv.slice(2)],
    { stdio: "inherit" }
  )
  // The server runs in the child: pass stop signals on, and leave with its exit code.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    }
    else process.exit(code ?? 1)
  })
}
