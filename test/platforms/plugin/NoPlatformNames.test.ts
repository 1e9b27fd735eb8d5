/**
 * Deliverable 1 of issue #38, checked: no built-in platform is written outside its folder
 * (`packages/platforms/src/<folder>/`), the registry (`Registry.ts`) and the wire enum
 * (`packages/domain/src/Platform.ts`, and the wire's own option fields in `Post.ts`). The scan reads
 * the code of every `packages/*\/src` file with its comments left out (prose may name a
 * platform) and looks for:
 *
 * - a platform's wire word as a string (`"shortvideo"`) or as a key or a property
 *   (`shortvideo:`, `.shortvideo`). The words that are also media kinds or plain words (`photo`,
 *   `video`, `pages`) are looked for only where a platform is meant: compared with or given as a
 *   `platform`, or as an options key (`options.photo`);
 * - an import of a platform's folder (`./tiktok/…`) or of one of its modules.
 *
 * What is left is listed in {@link allowed}, each with why.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { Registry } from "@postwire/platforms"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "../../..")

/** The built-in platforms' folders in `packages/platforms/src`, and the shared code of Meta's three. */
const folders = ["tiktok", "instagram", "facebook", "threads", "fediverse", "linkedin", "youtube", "atproto"] as const
const metaFolder = "meta"
const words = Registry.builtins.map((plugin) => plugin.name)
/** Wire words that are also media kinds or plain words: looked for only where they name a platform. */
const ambiguous = new Set(["photo", "video", "pages"])

/**
 * Files allowed to name platforms, and why. Keys are paths from the repository root; a folder
 * ends with `/`.
 */
const allowed: Readonly<Record<string, string>> = {
  "packages/platforms/src/Registry.ts": "the registry: one line per built-in platform",
  "packages/domain/src/Platform.ts": "the wire enum and the built-in platforms' display names beside it",
  "packages/domain/src/Post.ts": "the wire contract's own option fields (`targets[].photo`, `targets[].shortvideo`) and their schemas",
  "packages/platforms/src/index.ts": "the package's public exports of each platform's modules",
  "packages/platforms/src/meta/": "Meta's shared Graph API code, which names its three platforms (docs/platforms.md)",
  "packages/webhooks/src/WebhookEvent.ts":
    "the standalone webhook verifier's copy of the wire enum (that package has no dependencies)"
}

const isAllowed = (file: string): boolean =>
  Object.keys(allowed).some((key) => (key.endsWith("/") ? file.startsWith(key) : file === key))

/** The platform folder a file is in, if any. */
const folderOf = (file: string): string | undefined => /^packages\/platforms\/src\/([^/]+)\//.exec(file)?.[1]

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })

/** The code of a file without its comments (strings are kept; a `//` inside one is not a comment). */
const codeOf = (text: string): string =>
  text.replace(/("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (match, literal) =>
    literal === undefined ? match.replace(/[^\n]/g, " ") : match
  )

/** What names a platform in a line of code: its patterns, by the platform's word. */
const patternsOf = (word: string): ReadonlyArray<RegExp> =>
  ambiguous.has(word)
    ? [
        new RegExp(`platform\\s*(?:===|!==|==|!=|:)\\s*["'\`]${word}["'\`]`),
        new RegExp(`["'\`]${word}["'\`]\\s*(?:===|!==)\\s*[\\w.]*platform\\b`),
        new RegExp(`options\\??\\.${word}\\b`),
        new RegExp(`\\(\\s*["'\`]${word}["'\`]\\s*,`)
      ]
    : [new RegExp(`["'\`]${word}["'\`]`), new RegExp(`(?:^|[^\\w$])${word}\\??\\s*:`), new RegExp(`\\.${word}\\b`)]

interface Finding {
  readonly file: string
  readonly line: number
  readonly text: string
}

const scan = (): ReadonlyArray<Finding> => {
  const packages = readdirSync(join(root, "packages")).map((name) => join(root, "packages", name, "src"))
  const findings: Array<Finding> = []
  for (const dir of packages) {
    let files: ReadonlyArray<string>
    try {
      files = sources(dir)
    } catch {
      continue
    }
    for (const path of files) {
      const file = relative(root, path).split("\\").join("/")
      if (isAllowed(file)) continue
      const own = folderOf(file)
      const ownWord = own === undefined ? undefined : Registry.builtins[folders.indexOf(own as (typeof folders)[number])]?.name
      const lines = codeOf(readFileSync(path, "utf8")).split("\n")
      lines.forEach((text, index) => {
        const named = words.some((word) => word !== ownWord && patternsOf(word).some((pattern) => pattern.test(text)))
        const imported = folders.some((folder) => folder !== own && new RegExp(`from\\s+["'][^"']*/${folder}/`).test(text))
        if (named || imported) findings.push({ file, line: index + 1, text: text.trim() })
      })
    }
  }
  return findings
}

describe("no platform name outside its folder, the registry and the wire enum (issue #38)", () => {
  it("knows the built-in platforms' folders in the registry's order", () => {
    expect(Registry.builtins.map((plugin) => plugin.displayName)).toEqual([
      "TikTok",
      "Instagram",
      "Facebook Pages",
      "Threads",
      "Mastodon",
      "LinkedIn",
      "YouTube",
      "Bluesky"
    ])
    for (const folder of [...folders, metaFolder]) {
      expect(statSync(join(root, "packages/platforms/src", folder)).isDirectory()).toBe(true)
    }
  })

  it("finds a platform's word or folder in no other file", () => {
    expect(scan().map((f) => `${f.file}:${f.line}: ${f.text}`)).toEqual([])
  })
})
