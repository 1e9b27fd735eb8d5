/**
 * Text people wrote (a caption, a handle, a workspace's name) shown in our pages' sentences,
 * isolated from the text around it: a right-to-left override (U+202E) or any other bidi control
 * in it cannot reorder what the page says around it ("approve" shown as "reject", a handle
 * spoofing another).
 *
 * @since 0.5.0
 */

/** First-strong isolate … pop directional isolate: the plain-text `<bdi>`. */
const open = "\u2068"
const close = "\u2069"

/**
 * `text` between an isolate and its end, for sentences built as strings. Isolate controls of the
 * text itself are dropped, so that none of them can end the isolate early.
 */
export const isolated = (text: string): string => `${open}${text.replace(/[\u2066-\u2069]/g, "")}${close}`
