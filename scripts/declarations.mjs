#!/usr/bin/env node
// Emits a package's type declarations into dist/, one file per source module, for both module
// systems: `.d.ts` beside the ESM build and `.d.cts` beside the CommonJS build.
//
// Why not tsup's bundled declarations: the bundler turns `export * as Post from "./Post.ts"` into
// a namespace that keeps only the type half of a name that is both a schema (value) and a type,
// so `typeof Post.CreatePostRequest` breaks in installed packages (issue #18). Plain `tsc`
// output keeps every module as written.
//
// Run from a package directory after tsup (`tsup && node ../../scripts/declarations.mjs`).
// The package's workspace dependencies must be built first: their declarations are read from
// their dist/, not from their sources.
import { writeFileSync, mkdirSync } from "node:fs"
import { dirname, resolve } from "node:path"
import ts from "typescript"

const packageDir = process.cwd()
const configPath = resolve(packageDir, "tsconfig.json")

const parsed = ts.getParsedCommandLineOfConfigFile(
  configPath,
  {
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false,
    outDir: resolve(packageDir, "dist"),
    // Read sibling packages as their users will: from their built declarations.
    customConditions: []
  },
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) }
)
if (parsed === undefined) process.exit(1)

const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options })

// Relative specifiers are written with `.ts` in the sources; declarations point at the emitted
// files of their own module system.
const relativeTs = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+?)\.ts\2/g
const withExtension = (text, extension) => text.replace(relativeTs, `$1$2$3${extension}$2`)

const emitted = []
const result = program.emit(
  undefined,
  (fileName, text) => {
    if (!fileName.endsWith(".d.ts")) return
    mkdirSync(dirname(fileName), { recursive: true })
    writeFileSync(fileName, withExtension(text, ".js"))
    writeFileSync(fileName.replace(/\.d\.ts$/, ".d.cts"), withExtension(text, ".cjs"))
    emitted.push(fileName)
  },
  undefined,
  true
)

const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics]
if (diagnostics.length > 0) fail(diagnostics)
console.log(`DTS ${emitted.length} declaration files (.d.ts and .d.cts) in dist/`)

function fail(diagnostics) {
  console.error(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => packageDir,
      getNewLine: () => "\n"
    })
  )
  process.exit(1)
}
