/**
 * A text in both languages the service speaks, and the `{placeholder}` filling that every error
 * message goes through.
 *
 * A message's free-text parts (why a request was refused, which resource) are `LocalizedText`
 * values, so that the Indonesian message is Indonesian throughout; identifiers and numbers are
 * plain strings and numbers, the same in both languages.
 *
 * @since 0.1.0
 */
import type { Locale } from "./ErrorCatalog.ts"

/**
 * A text in English and in Indonesian.
 *
 * @example
 * ```ts
 * import { inLocale } from "@postwire/domain"
 * inLocale({ en: "is required", id: "wajib diisi" }, "id") // "wajib diisi"
 * ```
 */
export interface LocalizedText {
  readonly en: string
  readonly id: string
}

/** What a `{placeholder}` can be filled with: an identifier or a number as is, or a text in both languages. */
export type PlaceholderValue = string | number | LocalizedText

/** Whether a value is a {@link LocalizedText}. */
export const isLocalizedText = (u: unknown): u is LocalizedText =>
  typeof u === "object" &&
  u !== null &&
  typeof (u as { en?: unknown }).en === "string" &&
  typeof (u as { id?: unknown }).id === "string"

/** A placeholder value in `locale`: a text in that language; strings and numbers as they are. */
export const inLocale = (value: PlaceholderValue, locale: Locale): string =>
  typeof value === "object" ? value[locale] : String(value)

/** Fills the `{name}` placeholders of `template` in `locale`; a placeholder without a value is left empty. */
export const fillPlaceholders = (
  template: string,
  locale: Locale,
  values: Readonly<Record<string, PlaceholderValue | undefined>>
): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name]
    return value === undefined ? "" : inLocale(value, locale)
  })

/** The names of the `{placeholders}` of a template, as a type. */
export type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never
