/**
 * The shell blocks a newcomer runs first, run as written against a real server on loopback: the
 * README's first request (accounts, a form upload of `photo.jpg`, a post) and its connect request,
 * and the resumable upload of `docs/media.md`. The blocks are read from the Markdown itself
 * (test/docs/samples.ts), so a sample that breaks fails here.
 *
 * Only what a reader must change is replaced: the placeholders the page tells them to replace
 * (`svc_test_…`, `prof_…`, `acc_…`, `med_…`), the server's address (`localhost:8080` is where
 * `postwire serve` listens; the test server listens on a free port), and for `docs/media.md` the
 * file (a real 16 MiB MP4 instead of a 700 MB one: one part of the documented 16 MiB part size,
 * so the block's own `Content-Range` stays as written apart from the total). Each command runs in
 * `bash` with `curl`, as a reader's terminal would.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aJpeg } from "../support/Media.ts"
import { aLargeMp4 } from "../support/LargeMedia.ts"
import { aConnectServer, returnedQuery, sandboxJourney } from "../support/Connect.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { type Block, shellBlocks } from "./samples.ts"

const run = promisify(execFile)

/** The one shell block of `file` that contains `marker`; the test fails when there is none or several. */
const blockWith = (file: string, marker: string): Block => {
  const found = shellBlocks().filter((block) => block.file === file && block.code.includes(marker))
  if (found.length !== 1) throw new Error(`expected one shell block of ${file} containing ${marker}, found ${found.length}`)
  return found[0]!
}

/** A block's commands: comment and blank lines dropped, `\`-continued lines joined. */
const commandsOf = (block: Block): Array<string> => {
  const commands: Array<string> = []
  let current = ""
  for (const line of block.code.split("\n")) {
    if (current === "" && (line.trim() === "" || line.trim().startsWith("#"))) continue
    current += `${line}\n`
    if (!line.trimEnd().endsWith("\\")) {
      commands.push(current.trimEnd())
      current = ""
    }
  }
  if (current !== "") commands.push(current.trimEnd())
  return commands
}

describe("the shell samples a newcomer runs", () => {
  let server: TestServer
  const work = mkdtempSync(join(tmpdir(), "postwire-docs-shell-"))

  beforeAll(async () => {
    // Its public URL is its own address: upload and approval links point back at it.
    server = await aConnectServer((env, options) => startServer("embedded", env, options))
  })
  afterAll(async () => {
    await server?.stop()
    rmSync(work, { recursive: true, force: true })
  })

  /**
   * Runs one command in bash in the work directory, after the given replacements; fails when a
   * placeholder (`…`) is left in it, or when curl fails. Answers what it printed.
   */
  const sh = async (command: string, replacements: ReadonlyArray<readonly [string, string]>, env: Record<string, string>) => {
    let text = command
    for (const [from, to] of replacements) text = text.split(from).join(to)
    const left = text.split("\n").filter((line) => /\w…/.test(line.replace(/#.*$/, "")))
    expect(left, `placeholders left in:\n${text}`).toEqual([])
    const { stdout } = await run("bash", ["-e", "-c", text], { cwd: work, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 })
    return stdout
  }

  const address = () => server.baseUrl.replace("http://", "")

  it("runs the README's first request: accounts, a form upload of photo.jpg, a post awaiting approval", async () => {
    // A phone's photo: 4032×3024 with an Exif segment, over 100 KB (base64 on a command line fails past ~96 KB).
    const photo = aJpeg({ width: 4032, height: 3024, exifBytes: 65_000 })
    expect(photo.length).toBeGreaterThan(100_000)
    writeFileSync(join(work, "photo.jpg"), photo)
    const [assignment, ...commands] = commandsOf(blockWith("README.md", "KEY=svc_test_"))
    // `KEY=svc_test_…   # printed by the first start`: the reader puts their test key there.
    expect(assignment).toMatch(/^KEY=svc_test_…\s/)
    expect(commands).toHaveLength(3)
    const env = { KEY: server.testKey }
    const pages = server.accounts.find((account) => account.platform === "pages")!
    const replacements: Array<readonly [string, string]> = [
      ["localhost:8080", address()],
      ["prof_…", server.profileId],
      ["acc_…", pages.id]
    ]

    const accounts = JSON.parse(await sh(commands[0]!, replacements, env))
    expect(accounts.data.map((account: { id: string }) => account.id).sort()).toEqual(server.accounts.map((account) => account.id).sort())

    const media = JSON.parse(await sh(commands[1]!, replacements, env))
    expect(media).toMatchObject({ status: "ready", kind: "image", width: 4032, height: 3024, size_bytes: photo.length })
    expect(media.id).toMatch(/^med_/)

    const post = JSON.parse(await sh(commands[2]!, [...replacements, ["med_…", media.id]], env))
    expect(post).toMatchObject({ status: "awaiting_approval", profile_id: server.profileId, media: [media.id] })
    expect(post.approval.url).toMatch(/\/approve\//)
    // The approval link opens the review page.
    const page = await fetch(post.approval.url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("Hello")
  })

  it("runs the README's connect request; its url leads through the simulated consent page back to redirect_url with a new account", async () => {
    const commands = commandsOf(blockWith("README.md", "/v1/accounts/connect"))
    expect(commands).toHaveLength(1)
    const answer = JSON.parse(await sh(commands[0]!, [["localhost:8080", address()], ["prof_…", server.profileId]], { KEY: server.testKey }))
    expect(answer.url).toMatch(/^http/)
    // "Open the url it answers: with a test key it runs against a simulated consent page."
    const journey = await sandboxJourney(server, answer.url)
    expect(journey.callback.location).toMatch(/^https:\/\/app\.example\.com\/connected\?/)
    const accountId = returnedQuery(journey.callback).get("account_id")!
    const account = await fetch(`${server.baseUrl}/v1/accounts/${accountId}`, { headers: { authorization: `Bearer ${server.testKey}` } })
    expect(account.status).toBe(200)
    expect(await account.json()).toMatchObject({ id: accountId, platform: "shortvideo", profile_id: server.profileId })
  })

  it("runs docs/media.md's resumable upload: announce, send the part, ask what arrived, complete", async () => {
    const block = blockWith("docs/media.md", "/v1/media/uploads")
    const commands = commandsOf(block)
    expect(commands).toHaveLength(4)
    // The documented part size, so the block's part 0 (bytes 0-16777215) is the whole file.
    const size = 16 * 1024 * 1024
    const file = aLargeMp4(size)
    writeFileSync(join(work, "part-0"), file.bytesAt(0, size))
    const replacements: Array<readonly [string, string]> = [["734003200", String(size)]]
    const env = { POSTWIRE: server.baseUrl, KEY: server.testKey }

    const upload = JSON.parse(await sh(commands[0]!, replacements, env))
    expect(upload).toMatchObject({ part_size: size, part_count: 1, parts_received: [] })
    expect(upload.id).toMatch(/^med_/)
    const withUpload = { ...env, UPLOAD_URL: upload.upload_url }

    await sh(commands[1]!, replacements, withUpload)
    expect(JSON.parse(await sh(commands[2]!, replacements, withUpload))).toMatchObject({ id: upload.id, parts_received: [0] })
    const completed = JSON.parse(await sh(commands[3]!, replacements, withUpload))
    expect(completed).toMatchObject({ id: upload.id, status: "ready", kind: "video", size_bytes: size })
  })
})
