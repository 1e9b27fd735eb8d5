#!/usr/bin/env node
// Runs the built CLI when the package is built; in a source checkout, runs the TypeScript
// sources through tsx so that `npm install && npx postwire serve` works without a build.
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { setFlagsFromString } from "node:v8"

const here = dirname(fileURLToPath(import.meta.url))
const built = join(here, "..", "dist", "postwire.mjs")

/**
 * The commands that open the embedded database (no PostgreSQL named on the command line or in
 * DATABASE_URL) start reading PGlite's WebAssembly and file-system bundle, and compiling the
 * WebAssembly, before the command's own modules load: V8 compiles on another core while Node
 * compiles the command, and PgliteClient takes both (docs/performance.md, "Sixteenth round: the
 * second start"). Liftoff only, as the command itself sets it for the embedded database (cli/main.ts),
 * unless the process was started with a liftoff flag of its own.
 */
const preloadEmbeddedDatabase = (argv) => {
  const [command, action] = argv
  const opens = command === "serve" || command === "migrate" || (command === "secrets" && action === "reseal")
  if (!opens || (process.env.DATABASE_URL ?? "") !== "" || argv.some((arg) => arg.startsWith("--database-url"))) return
  if (argv.some((arg) => arg === "--help" || arg === "-h")) return
  let pglite
  try {
    pglite = fileURLToPath(import.meta.resolve("@electric-sql/pglite"))
  } catch {
    return
  }
  const asked = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)]
  if (!asked.some((flag) => flag.includes("liftoff"))) setFlagsFromString("--liftoff-only")
  // Read at once (a few milliseconds from the page cache): an asynchronous read would wait for
  // the main thread, busy compiling the command, between each of its chunks. The WebAssembly is
  // compiled on V8's background threads meanwhile.
  const load = (name, use) => {
    try {
      return Promise.resolve(use(readFileSync(join(dirname(pglite), name))))
    } catch (error) {
      return Promise.reject(error)
    }
  }
  const wasmModule = load("pglite.wasm", (bytes) => WebAssembly.compile(bytes))
  const fsBundle = load("pglite.data", (bytes) => bytes.buffer)
  // Unclaimed (the command failed before opening the database): no unhandled rejection.
  wasmModule.catch(() => undefined)
  fsBundle.catch(() => undefined)
  globalThis[Symbol.for("@postwire/store-sql/pglite-preload")] = { wasmModule, fsBundle }
}

if (existsSync(built)) {
  preloadEmbeddedDatabase(process.argv.slice(2))
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
