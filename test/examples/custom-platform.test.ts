/**
 * examples/custom-platform runs as its README says: `npm start` in its folder starts its blog,
 * serves the blog's plugin in the engine and publishes a post to the blog.
 */
import { spawn } from "node:child_process"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"

const folder = resolve(import.meta.dirname, "../../examples/custom-platform")

describe("examples/custom-platform with npm start", () => {
  it("prints the published post's address on the blog and the blog's one post", async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((done) => {
      const child = spawn("npm", ["start", "--silent"], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.on("exit", (code) => done({ code, output }))
    })
    expect(code).toBe(0)
    const blog = output.match(/The blog listens on (http:\/\/127\.0\.0\.1:\d+)/)?.[1]
    expect(blog).toBeDefined()
    expect(output).toContain(`Post published: ${blog}/posts/entry-1`)
    expect(output).toContain('The blog holds 1 post(s): "Hello from a platform of our own"')
  })
})
