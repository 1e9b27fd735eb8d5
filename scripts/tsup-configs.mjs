// The two kinds of build a package makes with tsup (its tsup.config.ts picks them):
//
// - `library(entry)`: the package's entry points, ESM and CommonJS, dependencies left to the
//   installer; the declarations (.d.ts and .d.cts) come from scripts/declarations.mjs.
// - `command(name, source, externals, omitted)`: a command's single ES module, `dist/<name>.mjs`, with the
//   Postwire packages (from their sources) and Effect inside, so that Node reads, resolves and
//   compiles a few files at start instead of a few hundred (docs/performance.md, twelfth round).
//   `externals` stay in node_modules (a package that reads files from beside its own module, or
//   one loaded only when configured); a name ending in `/` covers a whole scope. `omitted` (a
//   regular expression, optional) names modules the command never loads, such as the chunks of
//   dynamic imports it never reaches: each is replaced by a one-line module that throws if loaded.
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

/**
 * An esbuild plugin that replaces the modules `omitted` matches (paths, as imported) with one that
 * fails when loaded: for the chunks of dynamic imports a command never reaches, which would
 * otherwise ship in its tarball.
 */
const omit = (omitted) => ({
  name: "postwire-omit",
  setup(build) {
    build.onResolve({ filter: omitted }, (args) => ({ path: args.path, namespace: "postwire-omitted" }))
    build.onLoad({ filter: /.*/, namespace: "postwire-omitted" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of this command`)})`,
      loader: "js"
    }))
  }
})

/**
 * The bundled build of the command `name` from `source`, with `externals` left out and the
 * modules `omitted` matches (a regular expression, or undefined) replaced by a module that fails
 * when loaded.
 */
export const command = (name, source, externals = [], omitted = undefined) => ({
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
  esbuildPlugins: omitted === undefined ? [] : [omit(omitted)],
  // Bundled CommonJS dependencies (`ws`) call `require`, which an ES module does not have.
  banner: { js: 'import { createRequire as __postwireRequire } from "node:module"; const require = __postwireRequire(import.meta.url);' }
})
