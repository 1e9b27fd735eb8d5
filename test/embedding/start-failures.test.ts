/**
 * `PostwireEngine.make` and `makeHandler` that cannot start reject with the same one-line cause
 * and fix that `postwire serve` prints, and the cause's tag and fields to branch on.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeHandler, PostwireEngine, PostwireStartError } from "@postwire/server"

const directories: Array<string> = []
const aDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "postwire-start-"))
  directories.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

/** A loopback port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const rejection = async (start: Promise<unknown>): Promise<PostwireStartError> => {
  const error = await start.then(
    () => expect.fail("it started"),
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(PostwireStartError)
  return error as PostwireStartError
}

describe("an engine or handler that cannot start", () => {
  it("names the process holding the data directory and how to choose another", async () => {
    const dataDir = aDataDir()
    const first = await PostwireEngine.make({ dataDir })
    try {
      for (const second of [PostwireEngine.make({ dataDir }), makeHandler({ dataDir })]) {
        const error = await rejection(second)
        expect(error._tag).toBe("DataDirectoryInUse")
        expect(error.dataDir).toBe(dataDir)
        expect(error.pid).toBe(process.pid)
        expect(error.message).toBe(
          `The data directory ${dataDir} is in use by another Postwire process (pid ${process.pid}).\nStop that process, or give this one its own directory with the \`dataDir\` option.`
        )
      }
    } finally {
      await first.close()
    }
  })

  it("says where PostgreSQL is not reachable, without its password", async () => {
    const port = await closedPort()
    const database = `postgres://postwire:secret-pw@127.0.0.1:${port}/test`
    for (const start of [PostwireEngine.make({ database }), makeHandler({ database })]) {
      const error = await rejection(start)
      expect(error.message).toBe(`PostgreSQL is not reachable at 127.0.0.1:${port}/test (ECONNREFUSED).\nStart it, or correct DATABASE_URL.`)
      expect(error.message).not.toContain("secret-pw")
      expect(error._tag).not.toBe("")
    }
  })
})
