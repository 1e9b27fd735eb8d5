/**
 * Checks a plugin's `connect.form` when the registry takes the plugin: each field's name (the
 * key of `fields` in `begin`), label and kind, so a mistake stops the start with a one-line
 * error instead of showing a broken page to the person connecting.
 *
 * @since 0.5.0
 */
import type { ConnectFormField } from "@postwire/core"

/** A field name: the key of `fields`, and of the hosted page's form. */
export const fieldNamePattern = /^[a-z][a-z0-9_]{0,31}$/

const kinds: ReadonlyArray<ConnectFormField["kind"]> = ["text", "password", "url"]

/** What is wrong with a form, or `undefined` when it is usable. */
export const problemOf = (form: unknown): string | undefined => {
  if (form === undefined) return undefined
  if (!Array.isArray(form)) return "`connect.form` must be an array of fields"
  const seen = new Set<string>()
  for (const [i, field] of form.entries()) {
    if (typeof field !== "object" || field === null) return `\`connect.form[${i}]\` must be an object`
    const { name, label, kind, maxLength } = field as Record<string, unknown>
    if (typeof name !== "string" || !fieldNamePattern.test(name)) {
      return `\`connect.form[${i}].name\` must be 1 to 32 lowercase letters, digits or _, starting with a letter`
    }
    // `lang` carries the page's language through the form.
    if (seen.has(name) || name === "lang") return `\`connect.form\` names the field "${name}" twice (or uses the reserved "lang")`
    seen.add(name)
    if (typeof label !== "string" || label.trim() === "") return `\`connect.form[${i}].label\` must be a non-empty string`
    if (typeof kind !== "string" || !kinds.includes(kind as ConnectFormField["kind"])) {
      return `\`connect.form[${i}].kind\` must be one of ${kinds.join(", ")}`
    }
    if (maxLength !== undefined && (typeof maxLength !== "number" || !Number.isInteger(maxLength) || maxLength < 1 || maxLength > 8192)) {
      return `\`connect.form[${i}].maxLength\` must be a whole number from 1 to 8192`
    }
  }
  return undefined
}
