/**
 * A small blog with a posting endpoint, run in-process on 127.0.0.1: what a platform plugin of a
 * test publishes to. `POST /posts` `{ text, marker, tone? }` stores a post and answers `201 { id, url }`
 * (with the bearer token it was given); `GET /posts?marker=` lists the posts of a marker. With
 * `loseAnswers` set, that many publishes are stored and their answer lost (the socket closed). A
 * post with the word "forbidden" is refused: `422 { error: "word_not_allowed" }`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** A stored post. */
export interface BlogPost {
  readonly id: string
  readonly text: string
  readonly marker: string
  readonly url: string
  /** The tone the post was sent with (the plugin's per-target option), when one was. */
  readonly tone?: string | undefined
}

/** The running blog. */
export interface BlogService {
  readonly url: string
  readonly token: string
  readonly posts: Array<BlogPost>
  /** Publishes whose answer the next calls lose (stored, then the socket closed). */
  loseAnswers: number
  readonly stop: () => Promise<void>
}

const body = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = ""
    request.on("data", (chunk) => {
      text += chunk
    })
    request.on("end", () => resolve(text))
  })

/** Starts the blog on a free port. */
export const start = async (token = "blog-token"): Promise<BlogService> => {
  const posts: Array<BlogPost> = []
  const service: { loseAnswers: number } = { loseAnswers: 0 }
  let url = ""
  const server: Server = createServer(async (request, response) => {
    const address = new URL(request.url ?? "/", url)
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }))
      return
    }
    if (request.method === "POST" && address.pathname === "/posts") {
      const input = JSON.parse(await body(request)) as { text: string; marker: string; tone?: string }
      // The blog's own rule: it never publishes the word "forbidden" (422 with its own code).
      if (/\bforbidden\b/i.test(input.text)) {
        response.writeHead(422, { "content-type": "application/json" }).end(JSON.stringify({ error: "word_not_allowed" }))
        return
      }
      const id = String(posts.length + 1)
      const post = { id, text: input.text, marker: input.marker, url: `${url}/posts/${id}`, tone: input.tone }
      posts.push(post)
      if (service.loseAnswers > 0) {
        service.loseAnswers -= 1
        request.socket.destroy()
        return
      }
      response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id, url: post.url }))
      return
    }
    if (request.method === "GET" && address.pathname === "/posts") {
      const marker = address.searchParams.get("marker")
      const data = posts.filter((p) => p.marker === marker).map((p) => ({ id: p.id, url: p.url }))
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }))
      return
    }
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return Object.assign(service, {
    url,
    token,
    posts,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }) as BlogService
}
