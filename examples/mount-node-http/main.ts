/**
 * Postwire inside an existing `node:http` server: the app answers its own routes and hands
 * everything under `/postwire` to Postwire's handler. The app owns the port and the process:
 * it starts Postwire's background work (publishing, webhook deliveries) once it listens, and
 * stops it before it exits. Guide: docs/embedding.md.
 *
 * Run it from the repository: node --conditions=@postwire/source --import tsx examples/mount-node-http/main.ts
 * (port 3000, or the one PORT names; it prints its addresses).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { makeHandler, type PostwireHandler } from "@postwire/server"

/** The running app. */
export interface App {
  readonly server: Server
  readonly postwire: PostwireHandler
  /** Where the app listens, e.g. `http://localhost:3000`. */
  readonly url: string
  readonly close: () => Promise<void>
}

/** The port to listen on: `PORT` when it is set (`0`: any free port), else 3000. */
export const portFromEnvironment = (value = process.env.PORT): number => {
  if (value === undefined || value.trim() === "") return 3000
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number from 0 to 65535, got ${JSON.stringify(value)}`)
  return port
}

/** A port that cannot be listened on, said with the way out. */
const portProblem = (error: NodeJS.ErrnoException, port: number) =>
  error.code === "EADDRINUSE"
    ? new Error(`Port ${port} is already in use: set PORT to another one, e.g. PORT=3001 (or PORT=0 for any free port).`)
    : error

/** Starts the app on `port` (default `PORT`, else 3000; 0: any free port) with Postwire under `/postwire`. */
export async function start({ port = portFromEnvironment(), database, dataDir }: { port?: number; database?: string; dataDir?: string } = {}): Promise<App> {
  // 1. The app's own server, not listening yet.
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(portProblem(error, port)))
    server.listen(port, "127.0.0.1", resolve)
  })
  const url = `http://localhost:${(server.address() as AddressInfo).port}`

  // 2. Postwire, told where it is reachable so that its links (approval pages, docs) are right.
  const postwire = await makeHandler({ prefix: "/postwire", publicUrl: `${url}/postwire`, database, dataDir })
  server.on("request", (request, response) => {
    if (request.url === "/postwire" || request.url?.startsWith("/postwire/")) return postwire.node(request, response)
    response.writeHead(200, { "content-type": "text/plain" }).end("The app's own page\n")
  })

  // 3. Background work runs while the app does.
  await postwire.start()
  if (postwire.firstRun) console.log(`Postwire test key (shown once): ${postwire.firstRun.testKey}`)
  console.log(`App on ${url}, Postwire API on ${url}/postwire/v1, docs on ${url}/postwire/docs`)

  return {
    server,
    postwire,
    url,
    close: async () => {
      await postwire.stop()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await postwire.close()
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await start().catch((error: Error) => {
    console.error(error.message)
    process.exit(1)
  })
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void app.close())
}
