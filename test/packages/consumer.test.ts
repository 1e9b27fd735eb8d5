/**
 * Postwire as a new user gets it from npm: every package packed with `npm pack`, the tarballs
 * installed into a fresh app outside the repository (no workspace links), and there the types
 * checked strictly (`skipLibCheck: false`), the SDK run against a server started from the
 * installed `@postwire/server`, a platform plugin written against the published types served by
 * the installed `postwire serve --plugin` and published to, the engine embedded, the server mounted in Express, the
 * verifier and the SDK `require`d from CommonJS; and each tarball checked by publint and
 * `@arethetypeswrong/cli`. Every TypeScript block of the README, `docs/` and the packages' READMEs
 * is type-checked there too, as a reader would paste it (test/docs/samples.ts says how a block
 * gets the context it continues, or is marked as not checkable).
 *
 * It needs the packages built (CI runs `npm run build` first); without `dist/` it builds them.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inDocumentationTerms, typeScriptSamples } from "../docs/samples.ts"
import * as BlogService from "../platforms/plugin/BlogService.ts"
import { eventually } from "../support/Eventually.ts"
import { builtinPlatforms } from "@postwire/domain"

const run = promisify(execFile)
const root = resolve(import.meta.dirname, "../..")
const fixtures = join(import.meta.dirname, "consumer")
const packages = ["domain", "core", "store-sql", "platforms", "server", "client", "webhooks", "mcp"] as const
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }

/** Runs a command; on failure the error carries its output, so the test says what went wrong. */
const sh = async (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    return await run(command, [...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 })
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`)
  }
}

/** A port nothing listens on right now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

const node = (file: string, cwd: string, env: NodeJS.ProcessEnv = {}) =>
  sh(process.execPath, [file], cwd, env).then(({ stdout }) => JSON.parse(stdout.trim().split("\n").pop()!))

/**
 * Starts an installed MCP stdio command, initializes a session and lists the tools as an agent's
 * host does, then closes stdin; resolves with the JSON-RPC answers in order.
 */
const mcpOverStdio = (command: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<Array<any>>((resolve, reject) => {
    const child = spawn(command, [], { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    // Complete lines only: a long answer (tools/list) arrives in several chunks.
    const answers = () =>
      stdout
        .split("\n")
        .slice(0, -1)
        .filter((line) => line.includes('"id"'))
        .map((line) => JSON.parse(line))
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      if (answers().length >= 2) child.stdin!.end()
    })
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(answers()) : reject(new Error(`postwire-mcp exited with ${code}:\n${stdout}\n${stderr}`))))
    const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "consumer", version: "1.0.0" } } })
    send({ method: "notifications/initialized" })
    send({ id: 2, method: "tools/list", params: {} })
  })

describe("the packed packages in a fresh app", () => {
  const work = mkdtempSync(join(tmpdir(), "postwire-consumer-"))
  const app = join(work, "app")

  /**
   * Starts the installed `postwire serve` on a port that was free a moment ago. Another process can
   * take that port before the server binds it (the suite runs files in parallel): then it starts
   * again on another one.
   */
  const serveOnAFreePort = async (dataDir: string, attempts = 5): Promise<{ server: ChildProcess; ready: { port: string; key: string } }> => {
    const port = await freePort()
    const server: ChildProcess = spawn(join(app, "node_modules", ".bin", "postwire"), ["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir], {
      cwd: app,
      env: { ...process.env, DATABASE_URL: "", PORT: "" }
    })
    let output = ""
    try {
      const ready = await new Promise<{ port: string; key: string }>((resolve, reject) => {
        server.stdout!.on("data", (chunk: Buffer) => {
          output += chunk.toString()
          const port = /listening on port (\d+)/.exec(output)?.[1]
          const key = /Test key \(shown once, every scope\): (\S+)/.exec(output)?.[1]
          if (port && key) resolve({ port, key })
        })
        server.stderr!.on("data", (chunk: Buffer) => {
          output += chunk.toString()
        })
        server.on("exit", (code) => reject(new Error(`postwire serve exited with ${code}:\n${output}`)))
      })
      return { server, ready }
    } catch (error) {
      if (attempts > 1 && /already in use/i.test(output)) return serveOnAFreePort(`${dataDir}-${attempts}`, attempts - 1)
      throw error
    }
  }
  const tarballs: Record<string, string> = {}
  const docs = typeScriptSamples()

  beforeAll(async () => {
    if (packages.some((name) => !existsSync(join(root, "packages", name, "dist", "index.js")))) {
      await sh("npm", ["run", "build"], root)
    }
    const packs = join(work, "packs")
    mkdirSync(packs)
    const { stdout } = await sh("npm", ["pack", "--json", "--pack-destination", packs, ...packages.flatMap((name) => ["-w", `packages/${name}`])], root)
    for (const packed of JSON.parse(stdout) as Array<{ name: string; filename: string }>) {
      tarballs[packed.name] = join(packs, packed.filename)
    }

    mkdirSync(app)
    const local = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]))
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "consumer-app",
        private: true,
        type: "module",
        dependencies: { ...local, effect: rootPackage.devDependencies.effect, express: "^5.1.0" },
        // PGlite's declarations name Emscripten's types without depending on them (store-sql's README says so).
        devDependencies: { "@types/node": rootPackage.devDependencies["@types/node"], "@types/express": "^5.0.3", "@types/emscripten": "^1.41.6" },
        // The packages name each other by version; these are the versions to use.
        overrides: Object.fromEntries(Object.keys(local).map((name) => [name, `$${name}`]))
      })
    )
    for (const file of ["usage.ts", "mistakes.ts", "engine.ts", "mount.ts", "plugin.ts", "receiver.cjs", "tsconfig.json"]) {
      copyFileSync(join(fixtures, file), join(app, file))
    }
    // Each documentation sample as a module of its own, all checked by one tsc run.
    mkdirSync(join(app, "docs-samples"))
    for (const sample of docs.samples) writeFileSync(join(app, "docs-samples", sample.name), sample.text)
    writeFileSync(
      join(app, "tsconfig.docs.json"),
      JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { noEmit: true, types: ["node", "emscripten"] }, include: ["docs-samples/*.ts"] })
    )
    await sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], app)
  }, 900_000)

  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it("installs real copies, not links into the repository", () => {
    for (const name of packages) {
      const installed = join(app, "node_modules", "@postwire", name)
      expect(existsSync(join(installed, "dist", "index.js"))).toBe(true)
      expect(resolve(installed).startsWith(root)).toBe(false)
    }
  })

  it("ships a LICENSE, a README and both module systems in every tarball", async () => {
    for (const [name, file] of Object.entries(tarballs)) {
      const { stdout } = await sh("tar", ["-tzf", file], work)
      const files = stdout.split("\n")
      for (const expected of ["LICENSE", "README.md", "dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/index.d.cts"]) {
        expect(files, `${name} has ${expected}`).toContain(`package/${expected}`)
      }
    }
  })

  it("installs a consistent tree: npm ls --all exits 0 with effect pinned to the tested version", async () => {
    // Effect's Node platform would float to a newer release whose peer range excludes this effect.
    const { stdout } = await sh("npm", ["ls", "--all", "effect", "@effect/platform-node-shared"], app)
    expect(stdout).toContain(`effect@${rootPackage.devDependencies.effect}`)
    await sh("npm", ["ls", "--all"], app)
  })

  it("ships the guides with @postwire/server, and every relative link of a shipped README or guide names a shipped file", async () => {
    const shipped = async (name: string) =>
      new Set((await sh("tar", ["-tzf", tarballs[name]!], work)).stdout.split("\n").filter(Boolean).map((file) => file.replace(/^package\//, "")))
    const server = await shipped("@postwire/server")
    for (const guide of ["configuration.md", "operations.md", "embedding.md", "mcp.md", "accounts.md", "media.md", "webhooks.md", "approval-page.png"]) {
      expect(server, `@postwire/server ships docs/${guide}`).toContain(`docs/${guide}`)
    }
    const broken: Array<string> = []
    for (const name of Object.keys(tarballs)) {
      const files = await shipped(name)
      const installed = join(app, "node_modules", name)
      for (const page of [...files].filter((file) => file === "README.md" || /^docs\/[^/]+\.md$/.test(file))) {
        const text = readFileSync(join(installed, page), "utf8")
        for (const [, target = ""] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue
          const file = join(page.includes("/") ? page.slice(0, page.lastIndexOf("/")) : "", target.split("#")[0]!).replace(/\\/g, "/")
          if (!files.has(file)) broken.push(`${name} ${page}: (${target})`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it("names in postwire --help and postwire-mcp's usage only docs that are installed", async () => {
    const help = (await sh(join(app, "node_modules", ".bin", "postwire"), ["--help"], app)).stdout
    const mcpUsage = await sh(join(app, "node_modules", ".bin", "postwire-mcp"), ["--help"], app).then(
      ({ stdout, stderr }) => stdout + stderr,
      (error: Error) => error.message
    )
    expect(help).toContain("node_modules/@postwire/server/docs/")
    const named = [...`${help}\n${mcpUsage}`.matchAll(/docs\/([a-z-]+\.md)/g)].map((match) => match[1]!)
    expect(named).toEqual(expect.arrayContaining(["configuration.md", "operations.md", "mcp.md"]))
    for (const guide of named) expect(existsSync(join(app, "node_modules", "@postwire", "server", "docs", guide)), guide).toBe(true)
  })

  it("ships the documentation pages' scripts with the server only: postwire-mcp serves no pages", async () => {
    /** The size of each of Effect's Scalar and Swagger page chunks in a tarball, by file name. */
    const pageChunks = async (name: string) => {
      const { stdout } = await sh("tar", ["-tzvf", tarballs[name]!], work)
      return stdout
        .split("\n")
        .filter((line) => /dist\/httpApi(Scalar|Swagger)-[^/]*\.mjs$/.test(line))
        .map((line) => Number(line.trim().split(/\s+/)[2]))
    }
    const server = await pageChunks("@postwire/server")
    expect(server).toHaveLength(2)
    for (const size of server) expect(size).toBeGreaterThan(1_000_000)
    // In postwire-mcp a chunk is a line that fails if ever loaded, not megabytes of page scripts.
    for (const size of await pageChunks("@postwire/mcp")) expect(size).toBeLessThan(1_000)
  })

  it("type-checks typed usage strictly with skipLibCheck false, and catches every deliberate mistake", async () => {
    await sh(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], app)
    expect(existsSync(join(app, "out", "usage.js"))).toBe(true)
  }, 300_000)

  it("type-checks every TypeScript block of the README, docs/ and the packages' READMEs as written", async () => {
    expect(docs.samples.length).toBeGreaterThan(40)
    // Blocks marked `typecheck: skip` in the Markdown, each with its reason: adding one shows here.
    expect(docs.skipped.map((block) => `${block.file} ts block ${block.index}: ${block.directive?.kind === "skip" ? block.directive.reason : ""}`)).toEqual([
      "docs/api-reference.md ts block 1: a shortened excerpt of a schema in packages/domain/src, shown for its two descriptions"
    ])
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
    const checked = await run(process.execPath, [tsc, "-p", "tsconfig.docs.json", "--pretty", "false"], { cwd: app, maxBuffer: 64 * 1024 * 1024 }).then(
      () => "",
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}` || String(error)
    )
    expect(inDocumentationTerms(checked, docs.samples, join(app, "docs-samples")).trim(), "tsc on the documentation's samples").toBe("")
  }, 900_000)

  it("runs the SDK and the installed postwire-mcp command against a server started with the installed postwire command", async () => {
    const dataDir = join(work, "serve-data")
    const { server, ready } = await serveOnAFreePort(dataDir)
    try {
      const result = await node("out/usage.js", app, {
        POSTWIRE_BASE_URL: `http://127.0.0.1:${ready.port}`,
        POSTWIRE_API_KEY: ready.key
      })
      expect(result).toMatchObject({ status: "queued", accounts: builtinPlatforms.length, notFound: "404 not_found" })
      expect(result.created).toMatch(/^post_/)

      // The installed `postwire-mcp` command serves an agent over stdio against the same server.
      const answers = await mcpOverStdio(join(app, "node_modules", ".bin", "postwire-mcp"), app, {
        POSTWIRE_BASE_URL: `http://127.0.0.1:${ready.port}`,
        POSTWIRE_API_KEY: ready.key
      })
      expect(answers[0]).toMatchObject({ id: 1, result: { serverInfo: { name: "postwire" } } })
      expect(answers[1].id).toBe(2)
      expect(answers[1].result.tools.map((tool: { name: string }) => tool.name)).toContain("create_post")
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve))
        server.kill("SIGTERM")
        await exited
      }
    }
  }, 300_000)

  it("serves a plugin written against the published types with the installed postwire serve --plugin, and publishes to it", async () => {
    const blog = await BlogService.start()
    const port = await freePort()
    const adminToken = "pwadm_consumer_plugin_0123456789abcdef"
    const server = spawn(
      join(app, "node_modules", ".bin", "postwire"),
      ["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", join(work, "plugin-data"), "--plugin", "out/plugin.js"],
      { cwd: app, env: { ...process.env, DATABASE_URL: "", PORT: "", POSTWIRE_ADMIN_TOKEN: adminToken, BLOG_URL: blog.url } }
    )
    try {
      let output = ""
      await new Promise<void>((resolve, reject) => {
        server.stdout!.on("data", (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes("Try it:")) resolve()
        })
        server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
        server.on("exit", (code) => reject(new Error(`postwire serve exited with ${code}:\n${output}`)))
      })
      const base = `http://127.0.0.1:${port}`
      const workspace = /Workspace: (\S+)/.exec(output)?.[1]
      const profile = /Profile: (\S+)/.exec(output)?.[1]
      const admin = async (path: string, body: unknown) => {
        const reply = await fetch(`${base}/admin/v1/workspaces/${workspace}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        expect(reply.status).toBe(201)
        return (await reply.json()) as { id: string; key?: string }
      }
      const account = await admin("/accounts", { profile_id: profile, platform: "blog", sandbox: false, credentials: { token: blog.token } })
      const { key } = await admin("/keys", { kind: "live", scopes: ["posts:read", "posts:write"] })
      const api = async (method: string, path: string, body?: unknown) => {
        const reply = await fetch(`${base}/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        return (await reply.json()) as any
      }
      const media = await api("POST", "/media", { data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=" })
      const created = await api("POST", "/posts", {
        profile_id: profile,
        caption: "From a published-types plugin",
        media: [media.id],
        targets: [{ account_id: account.id }],
        approval: { mode: "none" }
      })
      const post = await eventually(
        () => api("GET", `/posts/${created.id}`),
        (read) => read.status === "published" || read.status === "failed",
        "the published-types plugin's post to publish or fail"
      )
      expect(post.status).toBe("published")
      expect(blog.posts.map((entry) => entry.text)).toEqual(["From a published-types plugin"])
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve))
        server.kill("SIGTERM")
        await exited
      }
      await blog.stop()
    }
  }, 300_000)

  it("embeds the engine and publishes a sandbox post with the event delivered to a callback", async () => {
    const result = await node("out/engine.js", app, { DATA_DIR: join(work, "engine-data") })
    expect(result.status).toBe("published")
    // A sandbox target's permalink is its page under the engine's public address (default http://localhost:8080).
    expect(result.permalink).toMatch(/^http:\/\/localhost:8080\/sandbox\/ws_\w+\/post_\w+\/tgt_\w+$/)
    expect(result.events).toEqual(expect.arrayContaining(["account.connected", "post.publishing", "post.published"]))
    expect(result.invalidField).toBe("invalid_request colour")
  }, 300_000)

  it("answers under /postwire inside an Express app", async () => {
    const result = await node("out/mount.js", app, { DATA_DIR: join(work, "mount-data") })
    expect(result).toEqual({ status: 200, platforms: [...builtinPlatforms].sort() })
  }, 300_000)

  it("lets a CommonJS receiver require the verifier and the SDK", async () => {
    const result = await node("receiver.cjs", app)
    expect(result).toEqual({
      header: "SERVICE-Signature",
      verified: "evt_1",
      tampered: "no_matching_signature",
      sdk: "function",
      errorClass: "function"
    })
  })

  it("passes publint and arethetypeswrong on every tarball", async () => {
    const { publint } = await import("publint")
    const { formatMessage } = await import("publint/utils")
    for (const name of packages) {
      const tarball = readFileSync(tarballs[`@postwire/${name}`]!)
      const { messages, pkg } = await publint({ pack: { tarball: new Uint8Array(tarball).buffer }, strict: true })
      expect(messages.map((message) => formatMessage(message, pkg)), `publint ${name}`).toEqual([])
      await sh(process.execPath, [join(root, "node_modules", "@arethetypeswrong", "cli", "dist", "index.js"), tarballs[`@postwire/${name}`]!, "--format", "ascii"], root)
    }
  }, 300_000)
})
