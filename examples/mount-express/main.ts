/**
 * Postwire inside an Express 5 app, under `/postwire`, beside the app's own routes and its
 * JSON body parser. The app starts Postwire's background work once it listens and stops it
 * before it exits. Guide: docs/embedding.md.
 *
 * Run it: npm start (in this folder), then open http://localhost:3000/postwire/docs
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

/** Starts the Express app on `port` (0: any free port) with Postwire under `/postwire`. */
export async function start({ port = 3000, database, dataDir }: { port?: number; database?: string; dataDir?: string } = {}): Promise<App> {
  const app = express()

  // Postwire reads its own request bodies: mount it before any body parser.
  const listening = await new Promise<Server>((resolve) => {
    const server = app.listen(port, "127.0.0.1", () => resolve(server))
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
  const app = await start()
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void app.close())
}
