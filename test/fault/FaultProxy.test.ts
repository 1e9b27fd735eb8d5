/**
 * The tests' TCP proxy does what the fault and lost-answer tests rely on, against a real echo
 * server on loopback: it forwards bytes in order, resets connections, holds traffic during a
 * black hole and delivers it after, delays chunks, refuses connections with a closed port,
 * swallows bytes for good while told to, and lets a rule cut, drop or hold the chunks it picks.
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import * as FaultProxy from "../support/FaultProxy.ts"

/** A client connected through the proxy, collecting what the echo server sends back and when. */
const aClient = async (port: number) => {
  const socket: Socket = connect(port, "127.0.0.1")
  let received = ""
  let lastAt = 0
  let failure: string | undefined
  let closed = false
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString()
    lastAt = Date.now()
  })
  socket.on("error", (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message))
  socket.on("close", () => (closed = true))
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve)
    socket.once("error", reject)
  })
  return {
    socket,
    received: () => received,
    failure: () => failure,
    closed: () => closed,
    /** When the last bytes came back (epoch ms). */
    lastAt: () => lastAt,
    /** Waits until `text` came back; returns all that came back. */
    until: (text: string) => eventually(() => received, (all) => all.includes(text), `"${text}" back through the proxy`)
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
  afterEach(() => {
    proxy.inspect(undefined)
    proxy.forward()
    proxy.heal()
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
    expect(await eventually(client.failure, "the client's socket error")).toBe("ECONNRESET")
    const next = await aClient(proxy.port)
    next.socket.write("after")
    expect(await next.until("after")).toBe("after")
    next.socket.destroy()
  })

  it("holds everything during a black hole and delivers it, in order, when the hole ends", async () => {
    const client = await aClient(proxy.port)
    const hole = Date.now()
    proxy.blackHole(1_000)
    client.socket.write("held ")
    client.socket.write("back")
    expect(await client.until("back")).toBe("held back")
    // Nothing came back before the hole ended: the last bytes, and so all of them, came after.
    expect(client.lastAt() - hole).toBeGreaterThanOrEqual(999)
    client.socket.destroy()
  })

  it("delays every chunk by the latency it is given", async () => {
    const client = await aClient(proxy.port)
    proxy.setLatency([400, 400])
    const sent = Date.now()
    client.socket.write("slow")
    expect(await client.until("slow")).toBe("slow")
    // 400 ms each way.
    expect(client.lastAt() - sent).toBeGreaterThanOrEqual(799)
    client.socket.destroy()
  })

  it("refuses new connections while refusing, keeps the open ones, and listens again after", async () => {
    const open = await aClient(proxy.port)
    const refusing = proxy.refuse(1_000)
    const refused = await aClient(proxy.port).then(
      (client) => {
        client.socket.destroy()
        return "connected"
      },
      (error: NodeJS.ErrnoException) => error.code
    )
    expect(refused).toBe("ECONNREFUSED")
    open.socket.write("still here")
    expect(await open.until("still here")).toBe("still here")
    await refusing
    const later = await aClient(proxy.port)
    later.socket.write("back again")
    expect(await later.until("back again")).toBe("back again")
    open.socket.destroy()
    later.socket.destroy()
  })

  it("swallows every byte while told to, the connection left open, and forwards again after", async () => {
    const client = await aClient(proxy.port)
    // A rule sees every chunk first: a swallowed one reaches the proxy and goes no further.
    const seen: Array<string> = []
    proxy.inspect((chunk) => {
      seen.push(`${chunk.direction} ${chunk.bytes.toString()}`)
      return "forward"
    })
    proxy.swallow()
    client.socket.write("lost")
    await eventually(() => seen.length, "the chunk at the proxy")
    proxy.forward()
    client.socket.write("found")
    expect(await client.until("found")).toBe("found")
    expect(seen).toEqual(["to-server lost", "to-server found", "to-client found"])
    expect(client.closed()).toBe(false)
    client.socket.destroy()
  })

  it("cuts, drops or holds what a rule picks, on the connection that carried it", async () => {
    const first = await aClient(proxy.port)
    const second = await aClient(proxy.port)
    const connections = new Set<object>()
    const seen: Array<string> = []
    proxy.inspect((chunk) => {
      connections.add(chunk.connection)
      const text = chunk.bytes.toString()
      seen.push(text)
      if (chunk.direction === "to-server" && text === "drop me") return "drop"
      if (chunk.direction === "to-server" && text === "hold me") return { holdMs: 500 }
      if (chunk.direction === "to-client" && text === "cut me") return "cut"
      return "forward"
    })
    // Each write once the proxy has seen the one before, so that TCP cannot join them.
    const send = async (client: Awaited<ReturnType<typeof aClient>>, text: string) => {
      client.socket.write(text)
      await eventually(() => seen.includes(text), `"${text}" at the proxy`)
    }
    await send(first, "drop me")
    await send(first, "kept")
    expect(await first.until("kept")).toBe("kept")
    const held = Date.now()
    await send(first, "hold me")
    await send(first, " and me")
    expect(await first.until("and me")).toBe("kepthold me and me")
    expect(first.lastAt() - held).toBeGreaterThanOrEqual(499)
    // The echo's answer is cut: that connection ends, the other goes on.
    await send(second, "cut me")
    await eventually(second.closed, "the cut connection to close")
    expect(second.received()).toBe("")
    await send(first, " still")
    expect(await first.until("still")).toBe("kepthold me and me still")
    expect(connections.size).toBe(2)
    first.socket.destroy()
  })

  it("names a database URL through it", async () => {
    expect(proxy.urlFor("postgres://postgres@db.example:5432/test?sslmode=disable")).toBe(
      `postgres://postgres@127.0.0.1:${proxy.port}/test?sslmode=disable`
    )
  })
})
