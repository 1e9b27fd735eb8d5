/**
 * The OpenAPI document as this server serves it: the contract (`@postwire/domain`'s `Api`)
 * completed with the platforms of its registry. Every `platform` field and parameter lists the
 * served platforms' words (built-in and plugins) as its `enum`, and a target's entry (request
 * `targets[]`, response `targets[].options`) describes each plugin's options under its word, from
 * the plugin's `options.schema`. The create requests' examples are the served plugins' own
 * (`PlatformPlugin.examples`) in place of the contract's neutral one. `/v1/openapi.json` and
 * `/docs` both show it.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"
import type { PlatformPlugin, Registry } from "@postwire/platforms"
import { Schema } from "effect"

// biome-ignore lint/suspicious/noExplicitAny: the generated OpenAPI document is untyped JSON (OpenApi.Transform)
type Json = Record<string, any>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** The JSON Schema of a plugin's options (its encoded side), its definitions moved to the document's components. */
const optionsSchema = (plugin: PlatformPlugin, components: Json): Json | undefined => {
  const schema = plugin.options?.schema
  if (schema === undefined) return undefined
  try {
    const document = Schema.toJsonSchemaDocument(schema as Schema.Constraint)
    const rewrite = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(rewrite)
        : isObject(value)
          ? Object.fromEntries(
              Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? v.replace("#/$defs/", "#/components/schemas/") : rewrite(v)])
            )
          : value
    for (const [name, definition] of Object.entries(document.definitions)) components[name] ??= rewrite(definition)
    return rewrite(document.schema) as Json
  } catch {
    // A schema without a JSON Schema (a declared type): described as an object.
    return { type: "object" }
  }
}

const requestDescription = (plugin: PlatformPlugin, own: unknown): string =>
  `Options of a \`${plugin.name}\` (${plugin.displayName}) target, decoded with the platform's schema. Only for ${plugin.name} ` +
  `accounts (400 otherwise).${typeof own === "string" && own !== "" ? ` ${own}` : ""}`

const responseDescription = (plugin: PlatformPlugin, own: unknown): string =>
  `The ${plugin.displayName} options the target publishes with, as the platform completed them. Present on ${plugin.name} ` +
  `targets only.${typeof own === "string" && own !== "" ? ` ${own}` : ""}`

/** The contract's open record of platform options (`allOf: [{ type: "object", additionalProperties: {} }]`). */
const isOpenRecord = (part: unknown): boolean =>
  isObject(part) && isObject(part.additionalProperties) && Object.keys(part.additionalProperties).length === 0 && Object.keys(part).length <= 2

/** A target entry of a request: `account_id` beside the open record of platform options. */
const isTargetInput = (node: Json): boolean =>
  isObject(node.properties) &&
  isObject(node.properties.account_id) &&
  !("status" in node.properties) &&
  Array.isArray(node.allOf) &&
  node.allOf.some(isOpenRecord)

/** A target of a response: its `options` object. */
const targetOptionsOf = (node: Json): Json | undefined =>
  isObject(node.properties) && isObject(node.properties.options) && isObject(node.properties.attempts) ? node.properties.options : undefined

/** Completes an object of platform options: each plugin's under its word; no other key. */
const addOptions = (node: Json, described: ReadonlyArray<{ plugin: PlatformPlugin; schema: Json }>, describe: typeof requestDescription) => {
  node.properties ??= {}
  for (const { plugin, schema } of described) {
    if (node.properties[plugin.name] !== undefined) continue
    node.properties[plugin.name] = { ...schema, description: describe(plugin, schema.description) }
  }
  // The rest record of the contract (`allOf: [{ additionalProperties: {} }]`): only served words are accepted.
  if (Array.isArray(node.allOf)) {
    node.allOf = node.allOf.filter((part: unknown) => !isOpenRecord(part))
    if (node.allOf.length === 0) delete node.allOf
  }
  node.additionalProperties = false
}

/**
 * Puts the plugins' create examples where the contract has its own: the named examples of a
 * request body, and the example bodies of its schema. Nothing when no plugin has examples.
 */
const replaceExamples = (spec: Json, plugins: ReadonlyArray<PlatformPlugin>): void => {
  const named = Object.fromEntries(plugins.flatMap((plugin) => Object.entries(plugin.examples ?? {})))
  if (Object.keys(named).length === 0) return
  const contractNamed = JSON.stringify(Post.createPostExamples)
  const contractBodies = JSON.stringify(Object.values(Post.createPostExamples).map((example) => example.value))
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item)
      return
    }
    if (!isObject(node)) return
    if (node.examples !== undefined) {
      const examples = JSON.stringify(node.examples)
      if (examples === contractNamed) node.examples = structuredClone(named)
      else if (examples === contractBodies) node.examples = Object.values(structuredClone(named)).map((example) => example.value)
    }
    for (const [key, value] of Object.entries(node)) if (key !== "examples" && key !== "example") visit(value)
  }
  visit(spec)
}

/**
 * The `OpenApi.Transform` of a server serving `registry`'s platforms: adds the platform enum and
 * the plugins' options to the generated document (in place, and returned).
 */
export const completeDocument =
  (registry: Pick<Registry.Registry, "names" | "plugins">) =>
  (spec: Json): Json => {
    const names = [...registry.names]
    spec.components ??= {}
    spec.components.schemas ??= {}
    const described = registry.plugins.flatMap((plugin) => {
      const schema = optionsSchema(plugin, spec.components.schemas)
      return schema === undefined ? [] : [{ plugin, schema }]
    })
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const item of node) {
          if (isObject(item) && item.name === "platform" && isObject(item.schema) && item.schema.type === "string") item.schema.enum = names
          visit(item)
        }
        return
      }
      if (!isObject(node)) return
      const platform = isObject(node.properties) ? node.properties.platform : undefined
      if (isObject(platform) && platform.type === "string" && platform.enum === undefined) platform.enum = names
      if (isTargetInput(node)) addOptions(node, described, requestDescription)
      const options = targetOptionsOf(node)
      if (options !== undefined) addOptions(options, described, responseDescription)
      for (const [key, value] of Object.entries(node)) if (key !== "examples" && key !== "example") visit(value)
    }
    visit(spec.paths)
    visit(spec.components)
    replaceExamples(spec, registry.plugins)
    return spec
  }
