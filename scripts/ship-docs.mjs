#!/usr/bin/env node
// Copies the guides (the repository's docs/: every page and the pictures they show) into the
// package being packed, as docs/, so that an npm user has them beside the README and the
// `postwire --help` that name them (docs/decisions.md, "The docs inside the installed package").
//
// A link that leaves docs/ (to the repository's README, an example, another package's source)
// names a file the tarball does not hold: it becomes plain text naming the repository's path,
// so every link left in a shipped page resolves to a shipped file.
//
// Run from the package directory (npm runs it as `prepack`); the copy is not committed.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const source = resolve(import.meta.dirname, "..", "docs")
const target = resolve(process.cwd(), "docs")
rmSync(target, { recursive: true, force: true })
mkdirSync(target)
for (const name of readdirSync(source)) {
  if (name.endsWith(".md")) {
    const text = readFileSync(join(source, name), "utf8").replace(
      /\[([^\]]+)\]\(\.\.\/([^)#]+)(#[^)]*)?\)/g,
      (_, label, path) => `${label} (the repository's \`${path}\`)`
    )
    writeFileSync(join(target, name), text)
  } else if (/\.(png|jpg|svg)$/.test(name)) {
    copyFileSync(join(source, name), join(target, name))
  }
}
