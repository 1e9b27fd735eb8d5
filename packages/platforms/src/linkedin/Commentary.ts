/**
 * A caption as LinkedIn's `commentary`: the Posts API reads it as "little" text, where
 * `| { } @ [ ] ( ) < > # \ * _ ~` build mentions, hashtag templates and the like; every one of
 * them must be escaped with a backslash to show as written ("All reserved characters need to be
 * escaped with a backslash, even if those characters are not used in one of the supported
 * elements", https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format).
 *
 * A `#` that starts a word is left as it is: `#hashtag` is little's own HashtagElement, so a
 * caption's hashtags stay hashtags on LinkedIn (docs/decisions.md, "LinkedIn commentary").
 *
 * @since 0.5.0
 */

const reserved = new Set(["|", "{", "}", "@", "[", "]", "(", ")", "<", ">", "#", "\\", "*", "_", "~"])

/** A letter, digit or `_` of any script: what may follow `#` in a hashtag. */
const hashtagStart = /[\p{L}\p{N}_]/u

/**
 * The caption escaped for `commentary`.
 *
 * @example
 * ```ts
 * fromCaption("Launch (v2) #news @team") // "Launch \\(v2\\) #news \\@team"
 * ```
 */
export const fromCaption = (caption: string): string => {
  let out = ""
  const chars = Array.from(caption)
  for (const [index, char] of chars.entries()) {
    if (char === "#" && hashtagStart.test(chars[index + 1] ?? "") && (index === 0 || !hashtagStart.test(chars[index - 1]!))) {
      out += char
    } else {
      out += reserved.has(char) ? `\\${char}` : char
    }
  }
  return out
}

/** The caption as it was written, from an escaped `commentary` (a post listed back by LinkedIn). */
export const toCaption = (commentary: string): string => commentary.replace(/\\([|{}@[\]()<>#\\*_~])/gu, "$1")

/**
 * The length LinkedIn counts against its 3,000: the escaped commentary's, in UTF-16 units as a
 * Java service counts a string (docs/decisions.md, "LinkedIn commentary").
 */
export const length = (caption: string): number => fromCaption(caption).length
