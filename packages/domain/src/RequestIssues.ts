/**
 * A request that does not match its schema, described problem by problem with the reasons of
 * `ErrorDetail`, so that `invalid_request` reads naturally in both languages.
 *
 * A check that names its own reason (see `ErrorDetail.annotation`) gives that reason; a check
 * whose `message` is the English text of a reason gives that reason; otherwise the reason is
 * read from the schema: a missing or unknown key, the expected type or values, a length.
 *
 * @since 0.1.0
 */
import { type SchemaAST, SchemaIssue } from "effect"
import * as ErrorDetail from "./ErrorDetail.ts"
import { isLocalizedText, type LocalizedText } from "./LocalizedText.ts"

/** One problem of a request: where it is (keys from the root) and why. */
export interface RequestIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly detail: LocalizedText
}

/** Messages of Effect's own checks that read better as a reason of the catalog. */
const effectMessages: Readonly<Record<string, LocalizedText>> = {
  "Expected a valid JSON body": ErrorDetail.reason("invalid_json")
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** The annotations a message is looked up in, as Effect's own formatter does. */
const annotationsOf = (issue: SchemaIssue.Issue): Readonly<Record<string, unknown>> | undefined => {
  switch (issue._tag) {
    case "Filter":
      return issue.filter.annotations
    case "InvalidValue":
    case "MissingKey":
    case "Forbidden":
      return issue.annotations
    case "InvalidType":
    case "UnexpectedKey":
    case "OneOf":
    case "AnyOf":
      return issue.ast.annotations
    default:
      return undefined
  }
}

/** The reason an issue's own annotations name, if any. */
const annotatedDetail = (issue: SchemaIssue.Issue): LocalizedText | undefined => {
  const annotations = annotationsOf(issue)
  if (annotations === undefined) return undefined
  const named = annotations[ErrorDetail.annotationKey]
  if (isLocalizedText(named)) return named
  const key = issue._tag === "MissingKey" ? "messageMissingKey" : issue._tag === "UnexpectedKey" ? "messageUnexpectedKey" : "message"
  const message = annotations[key]
  if (typeof message !== "string") return undefined
  return effectMessages[message] ?? ErrorDetail.fromEnglish(message)
}

const literalText = (ast: SchemaAST.AST): string | undefined =>
  ast._tag === "Literal" ? JSON.stringify(ast.literal) : ast._tag === "Null" ? "null" : undefined

/** Why a value does not have the type `ast` expects. */
const expectedType = (ast: SchemaAST.AST): LocalizedText | undefined => {
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return ErrorDetail.reason("must_be_string")
    case "Number":
      return ErrorDetail.reason("must_be_number")
    case "Boolean":
      return ErrorDetail.reason("must_be_boolean")
    case "Arrays":
      return ErrorDetail.reason("must_be_array")
    case "Objects":
      return ErrorDetail.reason("must_be_object")
    case "Null":
      return ErrorDetail.reason("must_be_null")
    case "Literal":
      return ErrorDetail.reason("must_equal", { value: JSON.stringify(ast.literal) })
    case "Union": {
      const literals = ast.types.map(literalText)
      if (literals.every((l) => l !== undefined)) {
        return ErrorDetail.reason("must_be_one_of", { values: literals.join(", ") })
      }
      // `NullOr(X)`, `X | Y`: name what the first member that is not null expects.
      const first = ast.types.find((t) => t._tag !== "Null")
      return first === undefined ? undefined : expectedType(first)
    }
    case "Suspend":
      return expectedType(ast.thunk())
    default:
      return undefined
  }
}

/** Why a check of Effect's (a length) refused a value. */
const checkDetail = (filter: SchemaAST.Filter<unknown>): LocalizedText | undefined => {
  const representation = filter.annotations?.representation
  const payload = (representation?.payload ?? {}) as { readonly minLength?: unknown; readonly maxLength?: unknown }
  switch (representation?.id) {
    case "effect/schema/isMinLength":
      return payload.minLength === 1
        ? ErrorDetail.reason("must_not_be_empty")
        : typeof payload.minLength === "number"
          ? ErrorDetail.reason("min_length", { min: payload.minLength })
          : undefined
    case "effect/schema/isMaxLength":
      return typeof payload.maxLength === "number" ? ErrorDetail.reason("max_length", { max: payload.maxLength }) : undefined
    default:
      return undefined
  }
}

/** A reason for an issue the catalog has no words for: Effect's English, a plain Indonesian. */
const fallback = (issue: SchemaIssue.Issue): LocalizedText => {
  const message = formatIssue(issue).issues[0]?.message ?? "is not valid"
  return { en: message.replace(/^Expected /, "expected "), id: ErrorDetail.reason("invalid_value").id }
}

const leafDetail = (issue: SchemaIssue.Leaf): LocalizedText => {
  const annotated = annotatedDetail(issue)
  if (annotated !== undefined) return annotated
  switch (issue._tag) {
    case "MissingKey":
      return ErrorDetail.reason("required")
    case "UnexpectedKey":
      return ErrorDetail.reason("unknown_field")
    case "InvalidType":
      return expectedType(issue.ast) ?? fallback(issue)
    default:
      return fallback(issue)
  }
}

const collect = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  override: LocalizedText | undefined
): Array<RequestIssue> => {
  switch (issue._tag) {
    case "Filter":
      return collect(issue.issue, path, override ?? annotatedDetail(issue) ?? checkDetail(issue.filter) ?? annotatedDetail(issue.issue))
    case "Encoding":
      return collect(issue.issue, path, override)
    case "Pointer":
      return collect(issue.issue, [...path, ...issue.path], override)
    case "Composite":
      return issue.issues.flatMap((inner) => collect(inner, path, override))
    case "AnyOf":
      if (issue.issues.length > 0) return issue.issues.flatMap((inner) => collect(inner, path, override))
      return [{ path, detail: override ?? annotatedDetail(issue) ?? expectedType(issue.ast) ?? fallback(issue) }]
    default:
      return [{ path, detail: override ?? leafDetail(issue) }]
  }
}

/**
 * Every problem of a schema failure, with its path and a reason in both languages.
 *
 * @example
 * ```ts
 * import { RequestIssues } from "@postwire/domain"
 * RequestIssues.describe(schemaError.issue)
 * // [{ path: ["caption"], detail: { en: "is required", id: "wajib diisi" } }]
 * ```
 */
export const describe = (issue: SchemaIssue.Issue): ReadonlyArray<RequestIssue> => collect(issue, [], undefined)
