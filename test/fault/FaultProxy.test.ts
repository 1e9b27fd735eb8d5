/**
 * The fault proxy does what the database fault test relies on, against a real echo server on
 * loopback: it forwards bytes in order, resets connections, holds traffic during a black hole and
 * delivers it after, delays chunks, and refuses connections with a closed port.
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FaultProxy from "../support/FaultProxy.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A client connected through the proxy, collecting what the echo server sends back. */
const aClient = async (port: number) => {
  const socket: Socket = connect(port, "127.0.0.1")
  let received = ""
  let failure: string | undefined
  socket.on("data", (chunk: Buffer) => (received += chunk.toString()))
  socket.on("error", (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message))
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })
  return {
    socket,
    received: () => received,
    failure: () => failure,
    /** Waits, polling, until `text` came back (or the socket failed). */
    until: async (text: string) => {
      for (let i = 0; i < 200 && !received.includes(text) && failure === undefined; i++) await sleep(25)
      return received
    }
  }
}

describe("FaultProxy", () => {
  let echo: Server
  let proxy: FaultProxy.FaultProxy

  beforeAll(async () => {
    echo = createServer((socket) => {
      socket.on("error", () => undefined)
      socket.pipe(socket)
    })
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve))
    proxy = await FaultProxy.start({ host: "127.0.0.1", port: (echo.address() as { port: number }).port }, () => 0.5)
  })
  afterAll(async () => {
    await proxy?.close()
    await new Promise((resolve) => echo?.close(resolve))
  })

  it("forwards both ways, in order", async () => {
    const client = await aClient(proxy.port)
    for (const part of ["one ", "two ", "three"]) client.socket.write(part)
    expect(await client.until("three")).toBe("one two three")
    client.socket.destroy()
  })

  it("resets every open connection, and lets the next one through", async () => {
    const client = await aClient(proxy.port)
    client.socket.write("before")
    await client.until("before")
    expect(proxy.resetAll()).toBeGreaterThanOrEqual(1)
    await client.until("never")
    expect(client.failure()).toBe("ECONNRESET")
    const next = await aClient(proxy.port)
    next.socket.write("after")
    expect(await next.until("after")).toBe("after")
    next.socket.destroy()
  })

  it("holds everything during a black hole and delivers it, in order, when the hole ends", async () => {
    const client = await aClient(proxy.port)
    proxy.blackHole(1_000)
    client.socket.write("held ")
    client.socket.write("back")
    await sleep(500)
    expect(client.received()).toBe("")
    expect(await client.until("back")).toBe("held back")
    client.socket.destroy()
  })

  it("delays every chunk by the latency it is given", async () => {
    const client = await aClient(proxy.port)
    proxy.setLatency([400, 400])
    client.socket.write("slow")
    // 400 ms each way: nothing is back after 400 ms.
    await sleep(400)
    expect(client.received()).toBe("")
    expect(await client.until("slow")).toBe("slow")
    proxy.setLatency(undefined)
    client.socket.destroy()
  })

  it("refuses new connections while refusing, keeps the open ones, and listens again after", async () => {
    const open = await aClient(proxy.port)
    const refusing = proxy.refuse(1_000)
    await sleep(100)
    await expect(aClient(proxy.port)).rejects.toMatchObject({ code: "ECONNREFUSED" })
    open.socket.write("still here")
    expect(await open.until("still here")).toBe("still here")
    await refusing
    const later = await aClient(proxy.port)
    later.socket.write("back again")
    expect(await later.until("back again")).toBe("back again")
    open.socket.destroy()
    later.socket.destroy()
  })
})
