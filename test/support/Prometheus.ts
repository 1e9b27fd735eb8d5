/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), written for the
 * tests from the format's specification, independently of the code that renders it: every line
 * must be a `# HELP`, a `# TYPE` or a sample of a declared family, names and label names must be
 * valid, label values correctly escaped, values numbers, a family's samples contiguous, and a
 * histogram's buckets cumulative and ending in `+Inf` equal to its `_count`.
 */

/** One sample: its full name (`x_bucket`, `x_sum`, …), labels and value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** One metric family. */
export interface Family {
  readonly name: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped"
  readonly help: string | undefined
  readonly samples: ReadonlyArray<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/

const parseValue = (raw: string, line: number): number => {
  if (raw === "+Inf") return Number.POSITIVE_INFINITY
  if (raw === "-Inf") return Number.NEGATIVE_INFINITY
  if (raw === "NaN") return Number.NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`line ${line}: bad value "${raw}"`)
  return Number(raw)
}

/** Reads `{a="x",b="y"}` from `text` at `start`; returns the labels and the index after `}`. */
const parseLabels = (text: string, start: number, line: number): [Record<string, string>, number] => {
  const labels: Record<string, string> = {}
  let i = start + 1
  for (;;) {
    if (text[i] === "}") return [labels, i + 1]
    const nameEnd = text.indexOf("=", i)
    if (nameEnd < 0) throw new Error(`line ${line}: label without =`)
    const name = text.slice(i, nameEnd)
    if (!labelName.test(name)) throw new Error(`line ${line}: bad label name "${name}"`)
    if (name in labels) throw new Error(`line ${line}: label "${name}" repeated`)
    if (text[nameEnd + 1] !== '"') throw new Error(`line ${line}: label value not quoted`)
    let value = ""
    let j = nameEnd + 2
    for (;;) {
      const c = text[j]
      if (c === undefined) throw new Error(`line ${line}: unterminated label value`)
      if (c === "\\") {
        const next = text[j + 1]
        if (next === "\\") value += "\\"
        else if (next === '"') value += '"'
        else if (next === "n") value += "\n"
        else throw new Error(`line ${line}: bad escape \\${next}`)
        j += 2
        continue
      }
      if (c === '"') break
      if (c === "\n") throw new Error(`line ${line}: newline in label value`)
      value += c
      j++
    }
    labels[name] = value
    i = j + 1
    if (text[i] === ",") i++
    else if (text[i] !== "}") throw new Error(`line ${line}: expected , or } after a label`)
  }
}

/** The family a sample name belongs to, given the declared families. */
const familyOf = (name: string, families: Map<string, Family>): Family | undefined => {
  const exact = families.get(name)
  if (exact !== undefined) return exact
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (name.endsWith(suffix)) {
      const family = families.get(name.slice(0, -suffix.length))
      if (family !== undefined && (family.type === "histogram" || family.type === "summary")) return family
    }
  }
  return undefined
}

/** Parses an exposition; throws naming the line of the first violation. */
export const parse = (text: string): Map<string, Family> => {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("the exposition must end with a newline")
  const families = new Map<string, Family>()
  const help = new Map<string, string>()
  const done = new Set<string>()
  let current: string | undefined
  const lines = text.split("\n").slice(0, -1)
  lines.forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === "") return
    if (raw.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw)
      if (match === null) return // a plain comment
      const [, kind, name = "", rest = ""] = match
      if (!metricName.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`)
      if (kind === "HELP") {
        if (help.has(name)) throw new Error(`line ${line}: second HELP for ${name}`)
        help.set(name, rest)
        return
      }
      if (families.has(name)) throw new Error(`line ${line}: second TYPE for ${name}`)
      if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) throw new Error(`line ${line}: bad type "${rest}"`)
      families.set(name, { name, type: rest as Family["type"], help: help.get(name), samples: [] })
      if (current !== undefined) done.add(current)
      current = name
      return
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw)
    if (nameMatch === null) throw new Error(`line ${line}: not a sample: "${raw}"`)
    const name = nameMatch[0]
    let rest = nameMatch[0].length
    let labels: Record<string, string> = {}
    if (raw[rest] === "{") [labels, rest] = parseLabels(raw, rest, line)
    const fields = raw.slice(rest).trim().split(/\s+/)
    if (fields.length < 1 || fields.length > 2 || fields[0] === "") throw new Error(`line ${line}: expected a value (and a timestamp)`)
    const value = parseValue(fields[0]!, line)
    const family = familyOf(name, families)
    if (family === undefined) throw new Error(`line ${line}: sample ${name} of no declared family`)
    if (family.name !== current || done.has(family.name)) throw new Error(`line ${line}: samples of ${family.name} are not contiguous`)
    ;(family.samples as Array<Sample>).push({ name, labels, value })
  })
  for (const family of families.values()) {
    const withHelp = { ...family, help: help.get(family.name) }
    families.set(family.name, withHelp)
    if (family.type === "histogram") checkHistogram(withHelp)
    if (family.type === "counter") {
      for (const sample of family.samples) if (!(sample.value >= 0)) throw new Error(`${family.name}: a counter below zero`)
    }
  }
  return families
}

const seriesKey = (labels: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.entries(labels).filter(([key]) => key !== "le").sort(([a], [b]) => (a < b ? -1 : 1)))

const checkHistogram = (family: Family) => {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>()
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels)
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (sample.name === `${family.name}_bucket`) {
      const le = sample.labels.le
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`)
      entry.buckets.push([parseValue(le, 0), sample.value])
    } else if (sample.name === `${family.name}_count`) entry.count = sample.value
    else if (sample.name === `${family.name}_sum`) entry.sum = sample.value
    else throw new Error(`${family.name}: unexpected sample ${sample.name}`)
  }
  for (const [key, entry] of series) {
    const last = entry.buckets.at(-1)
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY) throw new Error(`${family.name}${key}: no +Inf bucket last`)
    for (let i = 1; i < entry.buckets.length; i++) {
      const [le, count] = entry.buckets[i]!
      const [previousLe, previousCount] = entry.buckets[i - 1]!
      if (!(le > previousLe)) throw new Error(`${family.name}${key}: buckets not in increasing order`)
      if (count < previousCount) throw new Error(`${family.name}${key}: buckets not cumulative`)
    }
    if (entry.count === undefined || entry.sum === undefined) throw new Error(`${family.name}${key}: no _count or _sum`)
    if (entry.count !== last[1]) throw new Error(`${family.name}${key}: _count differs from the +Inf bucket`)
  }
}

/** The value of the sample `name` whose labels include `labels`, summed over the matching series (0 when none). */
export const sampleValue = (families: Map<string, Family>, name: string, labels: Readonly<Record<string, string>> = {}): number => {
  let total = 0
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) total += sample.value
    }
  }
  return total
}
