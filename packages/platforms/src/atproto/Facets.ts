/**
 * Rich text of a Bluesky post: links, mentions and hashtags found in the text, as the record's
 * `facets`, each located by UTF-8 byte offsets (`byteStart` inclusive, `byteEnd` exclusive), as
 * the protocol requires: a JavaScript string index (UTF-16) is not a byte offset once the text
 * has an emoji, an accent or CJK.
 *
 * The patterns follow Bluesky's guide and its reference implementation (`RichText.detectFacets`
 * of `@atproto/api`): a link is `http(s)://…` preceded by the start or a non-word character, with
 * sentence punctuation at its end left out; a mention is `@` and a handle (a domain name); a tag
 * is `#` (or the full-width `＃`) and up to 64 characters that are not all digits.
 * https://docs.bsky.app/docs/advanced-guides/post-richtext
 * https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/richtext/facet.json
 *
 * @since 0.5.0
 */

/** A feature of the text, located by UTF-16 indices (`start` inclusive, `end` exclusive). */
export type Found =
  | { readonly _tag: "link"; readonly start: number; readonly end: number; readonly uri: string }
  | { readonly _tag: "mention"; readonly start: number; readonly end: number; readonly handle: string }
  | { readonly _tag: "tag"; readonly start: number; readonly end: number; readonly tag: string }

/** One `app.bsky.richtext.facet` as the record carries it. */
export interface Facet {
  readonly index: { readonly byteStart: number; readonly byteEnd: number }
  readonly features: ReadonlyArray<
    | { readonly $type: "app.bsky.richtext.facet#link"; readonly uri: string }
    | { readonly $type: "app.bsky.richtext.facet#mention"; readonly did: string }
    | { readonly $type: "app.bsky.richtext.facet#tag"; readonly tag: string }
  >
}

const linkPattern = /(^|\s|\()((https?:\/\/[\S]+)|((?<domain>[a-z][a-z0-9]*(\.[a-z0-9]+)+)[\S]*))/gimu
const mentionPattern = /(^|\s|\()(@)([a-zA-Z0-9.-]+)(\b)/gu
const tagPattern =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: the classes list invisible characters one by one (ZWJ among them) that end a tag, as Bluesky's reference pattern does; no joined sequence is meant
  /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu
const handlePattern = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/
/** The longest tag, in characters (facet.json `tag.maxGraphemes: 64`). */
export const tagMax = 64

/**
 * The links, mentions and tags of a text, in the order they appear. A link is taken only with
 * its scheme (`https://…`): a bare domain stays plain text, so that a sentence's "example.com"
 * does not turn into a link nobody wrote.
 */
export const detect = (text: string): ReadonlyArray<Found> => {
  const found: Array<Found> = []
  for (const match of text.matchAll(mentionPattern)) {
    const handle = match[3]!.replace(/[.]+$/, "")
    if (!handlePattern.test(handle)) continue
    const start = match.index + match[1]!.length
    found.push({ _tag: "mention", start, end: start + 1 + handle.length, handle: handle.toLowerCase() })
  }
  for (const match of text.matchAll(linkPattern)) {
    if (match[3] === undefined) continue
    let uri = match[3]
    const start = match.index + match[1]!.length
    // Sentence punctuation after a link is not part of it; nor a closing parenthesis it did not open.
    if (/[.,;:!?]$/.test(uri)) uri = uri.replace(/[.,;:!?]+$/, "")
    if (uri.endsWith(")") && !uri.includes("(")) uri = uri.slice(0, -1)
    found.push({ _tag: "link", start, end: start + uri.length, uri })
  }
  for (const match of text.matchAll(tagPattern)) {
    if (match[2] === undefined) continue
    const tag = match[2].trim().replace(/\p{P}+$/gu, "")
    if (tag.length === 0 || tag.length > tagMax) continue
    const start = match.index + match[1]!.length
    found.push({ _tag: "tag", start, end: start + 1 + tag.length, tag })
  }
  return found.sort((a, b) => a.start - b.start)
}

const utf8 = new TextEncoder()

/** The UTF-8 byte offset of a UTF-16 index of `text`. */
export const byteOffset = (text: string, index: number): number => utf8.encode(text.slice(0, index)).length

/**
 * The facets of a text: each link and tag, and each mention whose handle `dids` resolves (an
 * unknown handle stays plain text, as Bluesky's app does).
 */
export const facets = (text: string, found: ReadonlyArray<Found>, dids: ReadonlyMap<string, string>): ReadonlyArray<Facet> => {
  const out: Array<Facet> = []
  for (const item of found) {
    const index = { byteStart: byteOffset(text, item.start), byteEnd: byteOffset(text, item.end) }
    if (item._tag === "link") out.push({ index, features: [{ $type: "app.bsky.richtext.facet#link", uri: item.uri }] })
    else if (item._tag === "tag") out.push({ index, features: [{ $type: "app.bsky.richtext.facet#tag", tag: item.tag }] })
    else {
      const did = dids.get(item.handle)
      if (did !== undefined) out.push({ index, features: [{ $type: "app.bsky.richtext.facet#mention", did }] })
    }
  }
  return out
}

/** The first link of a text, for the link card of a post without media. */
export const firstLink = (found: ReadonlyArray<Found>): string | undefined =>
  found.find((f): f is Extract<Found, { _tag: "link" }> => f._tag === "link")?.uri
