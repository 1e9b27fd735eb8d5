/**
 * Postwire inside an Express 5 app, under `/postwire`, beside the app's own routes and its
 * JSON body parser. The app starts Postwire's background work once it listens and stops it
 * before it exits. Guide: docs/embedding.md.
 *
 * Run it: npm start (in this folder; PORT=3001 npm start for another port), then open the docs
 * address it prints, http://localhost:3000/postwire/docs by default.
 */
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { makeHandler, type PostwireHandler } from "@postwire/server"
import express from "express"

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

/** Starts the Express app on `port` (default `PORT`, else 3000; 0: any free port) with Postwire under `/postwire`. */
export async function start({ port = portFromEnvironment(), database, dataDir }: { port?: number; database?: string; dataDir?: string } = {}): Promise<App> {
  const app = express()

  // Postwire reads its own request bodies: mount it before any body parser.
  const listening = await new Promise<Server>((resolve, reject) => {
    // Express 5 calls back with the error too, when the port cannot be listened on.
    const server = app.listen(port, "127.0.0.1", (error?: NodeJS.ErrnoException) => (error ? reject(portProblem(error, port)) : resolve(server)))
  })
  const url = `http://localhost:${(listening.address() as AddressInfo).port}`
  const postwire = await makeHandler({ publicUrl: `${url}/postwire`, database, dataDir })
  app.use("/postwire", postwire.node)

  // The app's own routes, with its own body parser.
  app.use(express.json())
  app.post("/notes", (request, response) => {
    response.status(201).json({ saved: request.body })
  })
  app.get("/", (_request, response) => {
    response.type("text").send("The app's own page\n")
  })

  await postwire.start()
  if (postwire.firstRun) console.log(`Postwire test key (shown once): ${postwire.firstRun.testKey}`)
  console.log(`App on ${url}, Postwire API on ${url}/postwire/v1, docs on ${url}/postwire/docs`)

  return {
    server: listening,
    postwire,
    url,
    close: async () => {
      await postwire.stop()
      await new Promise<void>((resolve) => listening.close(() => resolve()))
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
