/**
 * HTML that escapes by construction: every value interpolated into an `html` template is
 * escaped, unless it is itself `html` (a fragment built the same way) or marked `raw` (trusted
 * markup, such as a page's own stylesheet). Arrays are joined, `null`, `undefined` and `false`
 * render nothing.
 *
 * @example
 * ```ts
 * import { html, render } from "./Html.ts"
 *
 * const name = "<script>alert(1)</script>"
 * render(html`<p>Hello ${name}</p>`) // "<p>Hello &lt;script&gt;alert(1)&lt;/script&gt;</p>"
 * ```
 *
 * @since 0.2.0
 */

/** A fragment of HTML that is safe to insert as it is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

/** What may be interpolated into an `html` template. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | ReadonlyArray<HtmlValue>

/** Escapes text for an HTML text node or a quoted attribute value. */
export const escapeText = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const renderValue = (value: HtmlValue): string => {
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(renderValue).join("")
  if (value === null || value === undefined || value === false) return ""
  return escapeText(String(value))
}

/** The escaping template tag. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<HtmlValue>): SafeHtml => {
  let out = strings[0] ?? ""
  values.forEach((value, i) => {
    out += renderValue(value) + (strings[i + 1] ?? "")
  })
  return new SafeHtml(out)
}

/** Trusted markup, inserted without escaping: never give it anything a person typed. */
export const raw = (markup: string): SafeHtml => new SafeHtml(markup)

/** The text of a fragment, for a response body. */
export const render = (fragment: SafeHtml): string => fragment.value
