/**
 * HTML that escapes by construction: the `html` tagged template escapes every interpolated value
 * unless it is itself `Html` (a nested template, or `raw()` for a trusted fragment).
 *
 * @since 0.1.0
 */

/** A fragment of HTML whose text is safe to send as is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

/** What a template may interpolate: text (escaped), numbers, nested fragments, or lists of them. */
export type Interpolation = Html | string | number | boolean | null | undefined | ReadonlyArray<Interpolation>

const entities: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Escapes text for an element's content or a quoted attribute value. */
export const escapeText = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c] ?? c)

const render = (value: Interpolation): string => {
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join("")
  if (value === null || value === undefined || value === false) return ""
  return escapeText(String(value))
}

/**
 * Builds HTML, escaping interpolated text; `null`, `undefined` and `false` render nothing, arrays
 * render each item.
 *
 * @example
 * ```ts
 * import { html } from "./Html.ts"
 *
 * html`<p>${"<b>"}</p>`.value // "<p>&lt;b&gt;</p>"
 * ```
 */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): Html =>
  new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ""), ""))

/** Marks a trusted fragment (one built by the server, never user input) as HTML. */
export const raw = (fragment: string): Html => new Html(fragment)
