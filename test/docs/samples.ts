/**
 * The code blocks of the documentation, as the tests that check them read them: the README, every
 * page of `docs/` and every package's README.
 *
 * TypeScript blocks (```ts) are written out as one module each and type-checked together against
 * the packed packages (test/packages/consumer.test.ts). A block is checked exactly as a reader sees
 * it, with two explicit, visible-in-the-source exceptions, each an HTML comment on the line right
 * above the block's fence (Markdown renders neither):
 *
 * - `<!-- typecheck: prelude … -->`: the lines after `prelude` are put before the block. For a
 *   fragment that continues the page's earlier sample (e.g. `postwire` is the client created
 *   above) or calls the reader's own code (their database, their `markLive`): the prelude
 *   declares only that. Whatever a reader must import or define to use the sample is in the
 *   sample itself (`declare const rawBody: Buffer` where the receiver's body is meant).
 * - `<!-- typecheck: skip <reason> -->`: the block is not TypeScript that can be checked on its own
 *   (e.g. an excerpt of the project's own source). The test counts and lists these, so none is
 *   skipped silently.
 *
 * Shell blocks (```sh, ```bash) are read by the tests that run them (test/docs/shell.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"

/** The repository's root. */
export const root = resolve(import.meta.dirname, "../..")

/** One fenced code block of a Markdown file. */
export interface Block {
  /** The Markdown file, relative to the repository root (`docs/embedding.md`). */
  readonly file: string
  /** 1-based number of the block among the file's blocks of the same language group. */
  readonly index: number
  /** 1-based line of the opening fence. */
  readonly line: number
  /** The fence's language tag (`ts`, `sh`, …; `""` when none). */
  readonly language: string
  /** The block's text, without the fences and without the fence's indentation. */
  readonly code: string
  /** The `typecheck:` directive on the line above the fence, if any. */
  readonly directive: { readonly kind: "prelude"; readonly code: string } | { readonly kind: "skip"; readonly reason: string } | undefined
}

/** The Markdown files whose code is tested: README.md, docs/*.md, packages/*\/README.md. */
export const documentationFiles = (): Array<string> => {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`)
  const packages = readdirSync(join(root, "packages"))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => {
      try {
        readFileSync(join(root, file))
        return true
      } catch {
        return false
      }
    })
  return ["README.md", ...docs, ...packages]
}

const typescript = new Set(["ts", "typescript", "tsx", "mts"])
const shell = new Set(["sh", "bash", "shell", "console"])

/** `ts` for TypeScript tags, `sh` for shell tags, else the tag itself: blocks are numbered per group. */
const group = (language: string) => (typescript.has(language) ? "ts" : shell.has(language) ? "sh" : language)

const directiveAbove = (lines: ReadonlyArray<string>, fence: number): Block["directive"] => {
  // The comment ends on the line right above the fence; it may span several lines.
  const end = fence - 1
  if (end < 0 || !lines[end]!.trim().endsWith("-->")) return undefined
  let start = end
  while (start >= 0 && !lines[start]!.includes("<!--")) start--
  if (start < 0) return undefined
  const text = lines
    .slice(start, end + 1)
    .join("\n")
    .replace(/^\s*<!--/, "")
    .replace(/-->\s*$/, "")
  const match = /^\s*typecheck:\s*(prelude|skip)\b([\s\S]*)$/.exec(text)
  if (match === null) return undefined
  return match[1] === "prelude" ? { kind: "prelude", code: match[2]!.replace(/^[ \t]*\n/, "").trimEnd() } : { kind: "skip", reason: match[2]!.trim() }
}

/** Every fenced block of one Markdown file, in order. */
export const blocksOf = (file: string): Array<Block> => {
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  const blocks: Array<Block> = []
  const counts = new Map<string, number>()
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i]!)
    if (open === null) continue
    const [, indent, fence, tag] = open
    const language = tag!.toLowerCase()
    const body: Array<string> = []
    let j = i + 1
    while (j < lines.length && !(lines[j]!.trim().startsWith(fence!) && lines[j]!.trim().replace(/`/g, "") === "")) {
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!)
      j++
    }
    const index = (counts.get(group(language)) ?? 0) + 1
    counts.set(group(language), index)
    blocks.push({ file, index, line: i + 1, language, code: body.join("\n"), directive: directiveAbove(lines, i) })
    i = j
  }
  return blocks
}

/** Every fenced block of the documentation. */
export const allBlocks = (): Array<Block> => documentationFiles().flatMap(blocksOf)

/** The TypeScript blocks. */
export const typeScriptBlocks = (): Array<Block> => allBlocks().filter((block) => typescript.has(block.language))

/** The shell blocks. */
export const shellBlocks = (): Array<Block> => allBlocks().filter((block) => shell.has(block.language))

/** A TypeScript block written out as a module: where it came from, its file name and text. */
export interface Sample {
  readonly block: Block
  /** The module's file name, e.g. `docs__embedding.md__3.ts`. */
  readonly name: string
  readonly text: string
  /** Lines of prelude before the block's first line. */
  readonly offset: number
}

/**
 * The TypeScript blocks to check, one module each (`export {}` makes every one a module: top-level
 * `await` works and names do not collide between samples), and the blocks marked `skip`.
 */
export const typeScriptSamples = (): { readonly samples: Array<Sample>; readonly skipped: Array<Block> } => {
  const samples: Array<Sample> = []
  const skipped: Array<Block> = []
  for (const block of typeScriptBlocks()) {
    if (block.directive?.kind === "skip") {
      skipped.push(block)
      continue
    }
    const prelude = block.directive?.kind === "prelude" ? `${block.directive.code}\n` : ""
    samples.push({
      block,
      name: `${block.file.replace(/\//g, "__")}__${block.index}.ts`,
      text: `${prelude}${block.code}\nexport {}\n`,
      offset: prelude === "" ? 0 : prelude.split("\n").length - 1
    })
  }
  return { samples, skipped }
}

/**
 * Rewrites tsc's diagnostics about the samples into the documentation's terms: `docs/embedding.md
 * block 3 (line 120): error TS2554 …`, the line being the Markdown file's (a prelude's line is
 * named as such).
 */
export const inDocumentationTerms = (output: string, samples: ReadonlyArray<Sample>, directory: string): string => {
  const byName = new Map(samples.map((sample) => [sample.name, sample]))
  return output
    .split("\n")
    .map((line) => {
      const match = /^(\S+?\.ts)\((\d+),(\d+)\): (.*)$/.exec(line)
      if (match === null) return line
      const sample = byName.get(relative(directory, resolve(directory, match[1]!)).split(/[\\/]/).pop()!)
      if (sample === undefined) return line
      const sampleLine = Number(match[2]) - sample.offset
      const where = sampleLine < 1 ? "its typecheck prelude" : `line ${sample.block.line + sampleLine}`
      return `${sample.block.file} ts block ${sample.block.index} (${where}, column ${match[3]}): ${match[4]}`
    })
    .join("\n")
}
