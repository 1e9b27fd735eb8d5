/**
 * `postwire serve --plugin FILE` and `POSTWIRE_PLUGINS`: platform plugins loaded from JavaScript
 * modules, checked before the server starts.
 *
 * @since 0.1.0
 */
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type PlatformPlugin, Registry } from "@postwire/platforms"

/** A plugin file that cannot be served: the message names the file and what is wrong (one line). */
export class PluginFileProblem extends Error {
  constructor(
    readonly file: string,
    readonly problem: string
  ) {
    super(`Invalid platform plugin ${file}: ${problem}`)
    this.name = "PluginFileProblem"
  }
}

/**
 * The plugin files to load: the `--plugin` flags when given, else the comma-separated
 * `POSTWIRE_PLUGINS`; empty entries are ignored.
 */
export const pluginPaths = (flags: ReadonlyArray<string> | undefined, env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> =>
  (flags !== undefined && flags.length > 0 ? flags : (env.POSTWIRE_PLUGINS ?? "").split(","))
    .map((path) => path.trim())
    .filter((path) => path !== "")

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]

/**
 * Loads each file (relative to `cwd`) and checks its plugins: the module's default export, or
 * its export named `plugin`, is a `PlatformPlugin` or an array of them. Throws
 * {@link PluginFileProblem} for a missing file, a module that fails to load, no such export, an
 * invalid plugin, or a name already served (a built-in platform or another file's plugin).
 */
export const loadPluginFiles = async (paths: ReadonlyArray<string>, cwd: string = process.cwd()): Promise<ReadonlyArray<PlatformPlugin>> => {
  const loaded: Array<PlatformPlugin> = []
  const origins = new Map<string, string>()
  for (const path of paths) {
    const file = resolve(cwd, path)
    if (!existsSync(file)) throw new PluginFileProblem(path, "no such file")
    let module: Record<string, unknown>
    try {
      module = (await import(pathToFileURL(file).href)) as Record<string, unknown>
    } catch (error) {
      throw new PluginFileProblem(path, `cannot be loaded: ${firstLine(error)}`)
    }
    const exported = module.default ?? module.plugin
    if (exported === undefined) {
      throw new PluginFileProblem(path, "exports no plugin (export a PlatformPlugin, or an array of them, as default or as `plugin`)")
    }
    const values: ReadonlyArray<unknown> = Array.isArray(exported) ? exported : [exported]
    if (values.length === 0) throw new PluginFileProblem(path, "exports an empty array of plugins")
    for (const value of values) {
      let plugin: PlatformPlugin
      try {
        plugin = Registry.check(value)
      } catch (error) {
        const what = error instanceof Registry.PluginProblem ? (error.plugin === "(unnamed)" ? "its export" : `the plugin ${error.plugin}`) : undefined
        throw new PluginFileProblem(path, what === undefined ? firstLine(error) : `${what} ${(error as Registry.PluginProblem).problem}`)
      }
      const earlier = origins.get(plugin.name)
      if (earlier !== undefined) {
        throw new PluginFileProblem(path, `the platform "${plugin.name}" is already served by ${earlier === path ? "this file" : earlier}`)
      }
      if (Registry.builtins.some((builtin) => builtin.name === plugin.name)) {
        throw new PluginFileProblem(path, `the platform "${plugin.name}" is a built-in platform; choose another name`)
      }
      origins.set(plugin.name, path)
      loaded.push(plugin)
    }
  }
  // Whatever else the registry refuses (a name it reserves), named with the files.
  try {
    Registry.make(loaded)
  } catch (error) {
    throw new PluginFileProblem(paths.join(", "), firstLine(error))
  }
  return loaded
}
