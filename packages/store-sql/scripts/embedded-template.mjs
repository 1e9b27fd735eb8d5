#!/usr/bin/env node
// Writes dist/embedded-template.tar.gz: a new embedded database (PGlite, the version this
// package pins) with every migration of this version applied, dumped and gzipped. A first
// `postwire serve` unpacks it instead of running PostgreSQL's initdb (docs/performance.md,
// "Third round: the first start"); `dist/` is in the package's `files`, so it ships.
//
// Run from the package directory after tsup: it runs the built dist/index.js.
import { statSync } from "node:fs"
import { resolve } from "node:path"
import { Effect } from "effect"
import { PgliteClient, PgliteTemplate } from "../dist/index.js"

const target = resolve("dist", PgliteClient.packagedTemplateFile)
const began = performance.now()
await Effect.runPromise(PgliteTemplate.write(target))
console.log(
  `${PgliteClient.packagedTemplateFile}: ${(statSync(target).size / 1024 / 1024).toFixed(1)} MB in ${((performance.now() - began) / 1000).toFixed(1)} s`
)
