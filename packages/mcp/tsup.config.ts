import { defineConfig } from "tsup"

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
  // The `postwire-mcp` command (bin/postwire-mcp.js runs it): one ES module with the Postwire
  // packages and Effect inside, so an agent's client starts it without Node resolving and
  // compiling a few hundred modules first (docs/performance.md, twelfth round).
  {
    entry: { "postwire-mcp": "src/cli.ts" },
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    platform: "node",
    target: "node20",
    dts: false,
    sourcemap: false,
    clean: false,
    noExternal: [/./],
    esbuildOptions(options) {
      options.conditions = ["@postwire/source"]
    },
    // Bundled CommonJS dependencies (`ws`) call `require`, which an ES module does not have.
    banner: { js: 'import { createRequire as __postwireRequire } from "node:module"; const require = __postwireRequire(import.meta.url);' }
  }
])
