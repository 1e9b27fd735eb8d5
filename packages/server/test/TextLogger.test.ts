import { Cause, Effect, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { formatLine } from "../src/observability/TextLogger.ts"

/** The lines `effect` logs, formatted as the text logger writes them. */
const linesOf = async (effect: Effect.Effect<unknown, unknown>) => {
  const lines: Array<string> = []
  const collector = Logger.make((options) => {
    lines.push(formatLine(options))
  })
  await Effect.runPromise(effect.pipe(Effect.exit, Effect.provide(Logger.layer([collector]))))
  return lines
}

const stamp = /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] /

describe("the text log format", () => {
  it("writes the time, the level, the message, then the annotations and the values as key=value on one line", async () => {
    const [line] = await linesOf(
      Effect.logInfo("target published", {
        platform_post_id: "17912345678901234",
        permalink: "https://www.threads.net/@someone/post/C1a2b3c4d5e",
        permalink_pending: false
      }).pipe(Effect.annotateLogs({ target_id: "tgt_1", post_id: "post_1" }))
    )
    expect(line).toMatch(stamp)
    expect(line!.replace(stamp, "")).toBe(
      "INFO target published target_id=tgt_1 post_id=post_1 platform_post_id=17912345678901234 permalink=https://www.threads.net/@someone/post/C1a2b3c4d5e permalink_pending=false"
    )
  })

  it("quotes a value that holds a space, a quote, an equals sign or a backslash, or is empty, so each stays one token", async () => {
    const [line] = await linesOf(
      Effect.logWarning("odd values", {
        spaced: "two words",
        quoted: 'say "hi"',
        assigned: "a=b",
        slashed: "C:\\temp",
        empty: "",
        multiline: "one\ntwo",
        nothing: null,
        count: 3,
        nested: { list: [1, 2], name: "x y" }
      })
    )
    expect(line!.replace(stamp, "")).toBe(
      'WARN odd values spaced="two words" quoted="say \\"hi\\"" assigned="a=b" slashed="C:\\\\temp" empty="" multiline="one\\ntwo" nothing=null count=3 nested={"list":[1,2],"name":"x y"}'
    )
    expect(line).not.toContain("\n")
  })

  it("writes values that are not one object as details, and keeps a value JSON cannot hold on the line", async () => {
    const cyclic: Record<string, unknown> = { name: "loop" }
    cyclic.self = cyclic
    const lines = await linesOf(
      Effect.gen(function* () {
        yield* Effect.logInfo("two values", 1, "and words")
        yield* Effect.logInfo("a list", [1, 2])
        yield* Effect.logInfo("a cycle", { cyclic })
        yield* Effect.logWarning("a caught error", { error: new TypeError("bad input") })
        yield* Effect.logWarning("an error alone", new RangeError("out of range"))
      })
    )
    expect(lines.map((line) => line.replace(stamp, ""))).toEqual([
      "INFO two values and words details=1",
      "INFO a list details=[1,2]",
      // Redaction walks the value first and marks where it loops.
      'INFO a cycle cyclic={"name":"loop","self":"[cycle]"}',
      'WARN a caught error error="TypeError: bad input"',
      'WARN an error alone details="RangeError: out of range"'
    ])
  })

  it("puts a failure's cause on the lines after the event, indented, so every event starts a line", async () => {
    const [line] = await linesOf(Effect.logError("webhook dispatch pass failed", Cause.fail(new Error("connection refused"))))
    const [first, ...rest] = line!.split("\n")
    expect(first!.replace(stamp, "")).toBe("ERROR webhook dispatch pass failed")
    expect(rest.length).toBeGreaterThan(0)
    expect(rest.every((l) => l.startsWith("  "))).toBe(true)
    expect(rest.join("\n")).toContain("connection refused")
  })
})
