/**
 * The server mounted under /postwire in an Express app, as docs/embedding.md shows it.
 * Prints what the API answered there as JSON.
 */
import type { AddressInfo } from "node:net"
import { makeHandler } from "@postwire/server"
import express from "express"

const app = express()
const server = app.listen(0, "127.0.0.1")
await new Promise((resolve) => server.once("listening", resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const postwire = await makeHandler({ publicUrl: `${url}/postwire`, database: "memory", dataDir: process.env.DATA_DIR })
app.use("/postwire", postwire.node)
await postwire.start()

const response = await fetch(`${url}/postwire/v1/accounts`, { headers: { authorization: `Bearer ${postwire.firstRun!.testKey}` } })
const body = (await response.json()) as { data: Array<{ platform: string }> }

await postwire.stop()
server.close()
await postwire.close()
console.log(JSON.stringify({ status: response.status, platforms: body.data.map((a) => a.platform).sort() }))
