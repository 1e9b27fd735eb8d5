/**
 * A host embedding the server cannot give it a guessable admin token (issue #37, F7): one shorter
 * than 32 characters stops `makeHandler`, as `POSTWIRE_ADMIN_TOKEN` stops `postwire serve`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeHandler } from "@postwire/server"

describe("makeHandler's admin token", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "postwire-embed-admin-"))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it("refuses one shorter than 32 characters, naming the rule", async () => {
    await expect(makeHandler({ database: "memory", dataDir, adminToken: "a" })).rejects.toThrow(/adminToken: expected at least 32 characters, got 1/)
  })
})
