/**
 * `postwire analytics`: the built command against a real server: its table and sparkline, its
 * JSON, and a clear line for each bad flag or failed call.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const bin = join(import.meta.dirname, "../../packages/server/bin/postwire.js")

/** Runs the built `postwire` with `args`; the environment carries no key or server unless given. */
const postwire = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, POSTWIRE_API_KEY: "", POSTWIRE_BASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (c: Buffer) => (out += c.toString()))
    child.stderr.on("data", (c: Buffer) => (err += c.toString()))
    child.on("exit", (code) => resolve({ code, out, err }))
  })

describe("postwire analytics: flags", () => {
  it("answers --help with every flag and exit code 0, and lists the command in postwire --help", async () => {
    const help = await postwire(["analytics", "--help"])
    expect(help.code).toBe(0)
    for (const flag of ["--profile", "--days", "--platform", "--account", "--time-zone", "--json", "--api-key", "--base-url"]) {
      expect(help.out).toContain(flag)
    }
    expect((await postwire(["--help"])).out).toContain("postwire analytics [--profile PROF] [--days 30]")
  })

  it("refuses a bad flag with one line naming it and exit code 2, before calling any server", async () => {
    const cases: Array<[Array<string>, string]> = [
      [["--days", "abc"], `--days must be a whole number of days from 1, got "abc"`],
      [["--days", "0"], `--days must be a whole number of days from 1, got "0"`],
      [["--days", "-3"], "--days"],
      [["--days", "2.5"], `--days must be a whole number of days from 1, got "2.5"`],
      [["--profile", ""], "--profile needs a value"],
      [["--time-zone", "Mars/Olympus"], `--time-zone must be an IANA time zone (Asia/Jakarta), UTC or an offset like +07:00, got "Mars/Olympus"`],
      [["--base-url", "ftp://example.com"], `--base-url must be an http(s) URL, got "ftp://example.com"`],
      [["--dayz", "3"], "Unknown option '--dayz'"],
      [["extra"], "extra"]
    ]
    const runs = await Promise.all(cases.map(([args]) => postwire(["analytics", ...args, "--api-key", "svc_test_x"])))
    cases.forEach(([args, message], i) => {
      const run = runs[i]!
      expect(run.code, args.join(" ")).toBe(2)
      expect(run.err, args.join(" ")).toContain(message)
      expect(run.out).toBe("")
    })
  })

  it("asks for a key when neither --api-key nor POSTWIRE_API_KEY gives one", async () => {
    const run = await postwire(["analytics", "--days", "7"])
    expect(run.code).toBe(2)
    expect(run.err).toContain("no API key: set POSTWIRE_API_KEY or pass --api-key")
  })

  it("says so when no server answers at the address", async () => {
    const run = await postwire(["analytics"], { POSTWIRE_API_KEY: "svc_test_x", POSTWIRE_BASE_URL: "http://127.0.0.1:9" })
    expect(run.code).toBe(1)
    expect(run.out).toContain("Postwire server not reachable at http://127.0.0.1:9.")
  })
})
