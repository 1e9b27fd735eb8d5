import { defineConfig } from "tsup"

// ESM and CommonJS; the declarations (.d.ts and .d.cts) come from scripts/declarations.mjs.
export default defineConfig({
  entry: { index: "src/index.ts", cli: "src/cli.ts" },
  format: ["esm", "cjs"],
  target: "node20",
  dts: false,
  sourcemap: true,
  clean: true
})
