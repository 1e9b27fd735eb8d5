#!/usr/bin/env node
// Runs the built command when the package is built; in a source checkout, runs the TypeScript
// sources through tsx, so that `npm install && npx postwire-mcp` works without a build.
// stdio is inherited: the MCP client talks to the process that serves it.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const built = join(here, "..", "dist", "postwire-mcp.mjs")
if (existsSync(built)) {
  await import(pathToFileURL(built).href)
} else {
  const source = join(here, "..", "src", "cli.ts")
  const child = spawn(
    process.execPath,
    ["--conditions=@postwire/source", "--import", import.meta.resolve("tsx"), source, ...process.argv.slice(2)],
    { stdio: "inherit" }
  )
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    } else process.exit(code ?? 1)
  })
}
