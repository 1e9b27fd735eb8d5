/**
 * The platform of this example: a small blog with a posting endpoint, run in-process on
 * 127.0.0.1. `POST /posts` `{ text, ref }` (bearer token) stores a post and answers
 * `201 { id, url }`; `GET /posts?ref=` lists the posts made with that reference, which is how
 * the plugin finds a post whose answer it did not get.
 */
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

/** A post on the blog. */
export interface Entry {
  readonly id: string
  readonly text: string
  readonly ref: string
  readonly url: string
}

/** The running blog. */
export interface Blog {
  readonly url: string
  readonly token: string
  readonly entries: ReadonlyArray<Entry>
  readonly close: () => Promise<void>
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

/** Starts the blog on a free port; `token` is what its API asks for. */
export const startBlog = async (token = "example-blog-token"): Promise<Blog> => {
  const entries: Array<Entry> = []
  let base = ""
  const server = createServer(async (request, response) => {
    const reply = (status: number, body: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
    if (request.headers.authorization !== `Bearer ${token}`) return reply(401, { error: "unauthorized" })
    const url = new URL(request.url ?? "/", base)
    if (url.pathname !== "/posts") return reply(404, { error: "not found" })
    if (request.method === "GET") {
      const ref = url.searchParams.get("ref")
      return reply(200, { posts: entries.filter((entry) => entry.ref === ref) })
    }
    if (request.method === "POST") {
      const { text, ref } = JSON.parse(await readBody(request)) as { text?: unknown; ref?: unknown }
      if (typeof text !== "string" || typeof ref !== "string") return reply(400, { error: "text and ref are required" })
      const id = `entry-${entries.length + 1}`
      const entry = { id, text, ref, url: `${base}/posts/${id}` }
      entries.push(entry)
      return reply(201, { id, url: entry.url })
    }
    return reply(405, { error: "method not allowed" })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: base,
    token,
    entries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
