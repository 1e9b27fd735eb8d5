import { defineConfig } from "tsup"

/**
 * What the `postwire` command's single file leaves out, loaded from `node_modules` as usual:
 * PGlite reads its WebAssembly and data files from beside its own module, and the S3 and SMTP
 * clients are loaded only when a deployment configures them.
 */
const commandExternals = ["@electric-sql/pglite", "@aws-sdk/", "nodemailer"]

export default defineConfig([
  // The library: ESM and CommonJS; the declarations (.d.ts and .d.cts) come from scripts/declarations.mjs.
  {
    entry: { index: "src/index.ts" },
    format: ["esm", "cjs"],
    target: "node20",
    dts: false,
    sourcemap: true,
    clean: false
  },
  // The `postwire` command (bin/postwire.js runs it): one ES module with the Postwire packages and
  // Effect inside. Node then reads, resolves and compiles one file at start instead of about 400
  // (a second `serve` of the embedded database was ready in 1.75-2.02 s from the separate files,
  // 1.25-1.57 s from this one: docs/performance.md).
  {
    entry: { postwire: "src/cli/main.ts" },
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    platform: "node",
    target: "node20",
    dts: false,
    sourcemap: false,
    clean: false,
    // Everything but the externals above is bundled, the Postwire packages from their sources.
    noExternal: [new RegExp(`^(?!${commandExternals.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})`)],
    external: commandExternals.map((name) => (name.endsWith("/") ? new RegExp(`^${name.replace(/[/.]/g, "\\$&")}`) : name)),
    esbuildOptions(options) {
      options.conditions = ["@postwire/source"]
    },
    // Bundled CommonJS dependencies (`ws`) call `require`, which an ES module does not have.
    banner: { js: 'import { createRequire as __postwireRequire } from "node:module"; const require = __postwireRequire(import.meta.url);' }
  }
])
