import { defineConfig } from "tsup"

// ESM and CommonJS; the declarations (.d.ts and .d.cts) come from scripts/declarations.mjs.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  target: "node18",
  dts: false,
  sourcemap: true,
  clean: true
})
