/**
 * A request that reaches the server while it is still starting is answered at once: the server
 * listens before its routes are built, and until they are, `/health` answers 200 (the process is
 * alive), `/ready`, `/v1` and every other address 503 `not_ready` in the shared error shape with
 * `Retry-After`. The start is held open by a route layer that waits for the test, so every
 * request below is sent while the server is certainly starting.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Deferred, Effect, Exit, Layer, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { resolveSettings, serverLayer, storeLayer } from "@postwire/server"
import { eventually } from "../support/Eventually.ts"

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** Resolves once something accepts connections on the port. */
const accepting = (port: number) =>
  eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, "127.0.0.1")
        socket.once("connect", () => {
          socket.destroy()
          resolve(true)
        })
        socket.once("error", () => resolve(false))
      }),
    `port ${port} to accept connections`,
    { intervalMs: 20 }
  )

const directories: Array<string> = []
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

describe("requests during the start", () => {
  it("are answered: /health 200, /ready and the API 503 not_ready with Retry-After; the routes once started", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "postwire-startup-"))
    directories.push(dataDir)
    const port = await freePort()
    const settings = resolveSettings({ port: String(port), host: "127.0.0.1", dataDir }, { POSTWIRE_ADMIN_TOKEN: "pwadm_test_startup_0123456789abcdef" })
    const gate = Effect.runSync(Deferred.make<void>())
    // Built with the server's own routes: the router is installed only once this layer is built.
    const holdTheStart = Layer.effectDiscard(Deferred.await(gate))
    const scope = Effect.runSync(Scope.make())
    const started = Effect.runPromise(Layer.buildWithScope(serverLayer(settings, storeLayer(settings), holdTheStart), scope))
    try {
      await accepting(port)
      const base = `http://127.0.0.1:${port}`

      const health = await fetch(`${base}/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: "ok" })

      const ready = await fetch(`${base}/ready`, { headers: { "x-request-id": "lb-check-1" } })
      expect(ready.status).toBe(503)
      expect(ready.headers.get("retry-after")).toBe("1")
      expect(ready.headers.get("x-request-id")).toBe("lb-check-1")
      expect(await ready.json()).toEqual({
        error: expect.objectContaining({
          code: "not_ready",
          message: "This instance is not ready: it is still starting.",
          retryable: true,
          request_id: "lb-check-1",
          docs: expect.stringContaining("#not_ready")
        })
      })

      const created = await fetch(`${base}/v1/posts`, {
        method: "POST",
        headers: { authorization: "Bearer svc_test_x", "content-type": "application/json", "accept-language": "id" },
        body: JSON.stringify({ caption: "too early" })
      })
      expect(created.status).toBe(503)
      expect(created.headers.get("retry-after")).toBe("1")
      const body = (await created.json()) as { error: { code: string; message: string; message_id: string; request_id: string } }
      expect(body.error.code).toBe("not_ready")
      expect(body.error.message).toBe(body.error.message_id)
      expect(body.error.request_id).toMatch(/^req_/)

      Effect.runSync(Deferred.succeed(gate, undefined))
      await started
      // Started: the router answers, and the start-up answers are gone.
      const readyNow = await fetch(`${base}/ready`)
      expect(readyNow.status).toBe(200)
      expect(await readyNow.json()).toEqual(expect.objectContaining({ status: "ready" }))
      const unauthenticated = await fetch(`${base}/v1/posts`)
      expect(unauthenticated.status).toBe(401)
      expect(unauthenticated.headers.get("retry-after")).toBeNull()
    } finally {
      Effect.runSync(Deferred.succeed(gate, undefined))
      await started.catch(() => undefined)
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
