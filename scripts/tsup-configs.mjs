// The two kinds of build a package makes with tsup (its tsup.config.ts picks them):
//
// - `library(entry)`: the package's entry points, ESM and CommonJS, dependencies left to the
//   installer; the declarations (.d.ts and .d.cts) come from scripts/declarations.mjs.
// - `command(name, source, externals)`: a command's single ES module, `dist/<name>.mjs`, with the
//   Postwire packages (from their sources) and Effect inside, so that Node reads, resolves and
//   compiles a few files at start instead of a few hundred (docs/performance.md, twelfth round).
//   `externals` stay in node_modules (a package that reads files from beside its own module, or
//   one loaded only when configured); a name ending in `/` covers a whole scope.
//
// Each package's build script empties dist/ first: the two builds run side by side, so neither
// may clean it.

const escapeForRegExp = (text) => text.replace(/[/.]/g, "\\$&")

/** The library build of `entry` (tsup's `entry` option). */
export const library = (entry) => ({
  entry,
  format: ["esm", "cjs"],
  target: "node20",
  dts: false,
  sourcemap: true,
  clean: false
})

/** The bundled build of the command `name` from `source`, with `externals` left out. */
export const command = (name, source, externals = []) => ({
  entry: { [name]: source },
  format: ["esm"],
  outExtension: () => ({ js: ".mjs" }),
  platform: "node",
  target: "node20",
  dts: false,
  // Not minified (minifying did not start it faster) and each module marked with its source
  // path, so a stack trace reads without a map; a map would add megabytes to the tarball.
  sourcemap: false,
  clean: false,
  noExternal: [externals.length === 0 ? /./ : new RegExp(`^(?!${externals.map(escapeForRegExp).join("|")})`)],
  external: externals.map((name) => (name.endsWith("/") ? new RegExp(`^${escapeForRegExp(name)}`) : name)),
  esbuildOptions(options) {
    options.conditions = ["@postwire/source"]
  },
  // Bundled CommonJS dependencies (`ws`) call `require`, which an ES module does not have.
  banner: { js: 'import { createRequire as __postwireRequire } from "node:module"; const require = __postwireRequire(import.meta.url);' }
})
