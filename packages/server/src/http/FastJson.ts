/**
 * JSON bodies of the busiest responses written without the schema interpreter.
 *
 * Encoding a page of 25 posts (each with its targets and approval) through `Schema` walked every
 * field with the generic parser: about a tenth of the server's CPU under `GET /v1/posts` load.
 * The response schemas of those endpoints are plain JSON shapes (strings, numbers, literals,
 * `null`, arrays, structs), whose encoding only rebuilds each struct with its declared fields in
 * their declared order. {@link compile} turns such a schema into a function doing just that,
 * once, at startup; a schema with anything else (a transformation, a class, a union of structs)
 * is not compiled, and the caller keeps the schema's own encoder. The body is the one the
 * schema's encoder would have written, byte for byte (a test compares them).
 *
 * @since 0.3.0
 */
import type { Schema, SchemaAST } from "effect"
import { HttpServerResponse } from "effect/http"

type Encode = (value: unknown) => unknown

const same: Encode = (value) => value

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The value as the schema's encoding writes it, or `undefined` when the schema is not plain. */
const compileAst = (ast: SchemaAST.AST): Encode | undefined => {
  if (ast.encoding !== undefined) return undefined
  switch (ast._tag) {
    case "String":
    case "Number":
    case "Boolean":
    case "Literal":
    case "Null":
    case "Unknown":
    case "Any":
      return same
    case "Union": {
      const members = ast.types.map(compileAst)
      if (members.some((member) => member === undefined)) return undefined
      if (members.every((member) => member === same)) return same
      // `NullOr(a struct or an array)`: the only other union these responses have.
      const others = ast.types.filter((type) => type._tag !== "Null")
      if (others.length !== 1 || ast.types.length !== 2) return undefined
      const encode = compileAst(others[0]!)!
      return (value) => (value === null ? null : encode(value))
    }
    case "Arrays": {
      if (ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
      const item = compileAst(ast.rest[0]!)
      if (item === undefined) return undefined
      return item === same ? same : (value) => (Array.isArray(value) ? value.map(item) : value)
    }
    case "Objects": {
      // A record of anything beside the declared fields (`details` of an error, a target's
      // options under any platform's word): the other keys are written as they are.
      let rest = false
      if (ast.indexSignatures.length > 0) {
        const [index] = ast.indexSignatures
        if (ast.indexSignatures.length !== 1 || index!.parameter._tag !== "String" || compileAst(index!.type) !== same) {
          return undefined
        }
        if (ast.propertySignatures.length === 0) return same
        rest = true
      }
      const fields: Array<{ readonly name: string; readonly encode: Encode }> = []
      for (const property of ast.propertySignatures) {
        if (typeof property.name !== "string") return undefined
        const encode = compileAst(property.type)
        if (encode === undefined) return undefined
        fields.push({ name: property.name, encode })
      }
      const declared = new Set(fields.map((field) => field.name))
      return (value) => {
        if (!isRecord(value)) return value
        // The declared fields, in their declared order, as the schema's encoder writes them;
        // then, with a record beside them, the other keys in the value's own order.
        const out: Record<string, unknown> = {}
        for (const field of fields) {
          if (Object.hasOwn(value, field.name)) out[field.name] = field.encode(value[field.name])
        }
        if (rest) {
          for (const key of Object.keys(value)) if (!declared.has(key)) out[key] = value[key]
        }
        return out
      }
    }
    default:
      return undefined
  }
}

/** The encoder of a plain JSON schema (see the module's description), or `undefined`. */
export const compile = <S extends Schema.Top>(schema: S): ((value: S["Type"]) => unknown) | undefined =>
  compileAst(schema.ast)

/**
 * A handler's answer for a schema: a ready JSON response when the schema compiles (the
 * endpoint's encoder then lets it through as it is), else the value for the endpoint to encode.
 */
export const responder = <S extends Schema.Top>(schema: S, status = 200) => {
  const encode = compile(schema)
  return (value: S["Type"]): S["Type"] | HttpServerResponse.HttpServerResponse =>
    encode === undefined
      ? value
      : HttpServerResponse.text(JSON.stringify(encode(value)), { status, contentType: "application/json" })
}
