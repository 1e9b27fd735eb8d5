/**
 * The reference PDS (`@atproto/pds`, the server Bluesky runs) on loopback, with its own PLC
 * directory (`@did-plc/server` on an in-memory database), for the tests that prove the adapter
 * against the real server. One start per test file: about half a second.
 *
 * The PDS runs without an App View (nothing on this machine runs one), so App View methods
 * (`app.bsky.feed.getPostThread`) answer `InvalidRequest` "No service configured": the comment
 * reading is tested against the fake (`PdsFake`), the records themselves against this server.
 *
 * Also a small HTTP proxy in front of it that, when armed, lets a `createRecord` reach the PDS
 * and then closes the connection before its answer gets back: a lost answer.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A running PDS with one account and its app password. */
export interface RealPds {
  readonly url: string
  /** The PLC directory holding the accounts' DID documents. */
  readonly plcUrl: string
  /** Creates an account (`{name}.test`) and an app password for it. */
  readonly account: (name: string) => Promise<{ readonly did: string; readonly handle: string; readonly password: string; readonly appPassword: string; readonly accessJwt: string }>
  /** Calls an XRPC method of the PDS directly (its own API, for reading back). */
  readonly xrpc: (nsid: string, options?: { readonly params?: Record<string, string>; readonly body?: unknown; readonly token?: string }) => Promise<{ readonly status: number; readonly json: any }>
  readonly stop: () => Promise<void>
}

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

const freePort = async () => {
  const probe = createServer()
  const port = await listen(probe)
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** Starts the PLC directory and the PDS. */
export const start = async (): Promise<RealPds> => {
  process.env.LOG_ENABLED = "false"
  const { PlcServer, Database } = await import("@did-plc/server")
  const pds = await import("@atproto/pds")
  const { Secp256k1Keypair } = await import("@atproto/crypto")
  const plc = PlcServer.create({ db: Database.mock(), port: 0 })
  const plcServer = await plc.start()
  const plcUrl = `http://localhost:${(plcServer.address() as AddressInfo).port}`
  const dir = mkdtempSync(join(tmpdir(), "postwire-pds-"))
  const key = await Secp256k1Keypair.create({ exportable: true })
  const port = await freePort()
  const env = {
    port,
    hostname: "localhost",
    devMode: true,
    dataDirectory: dir,
    blobstoreDiskLocation: join(dir, "blobs"),
    didPlcUrl: plcUrl,
    inviteRequired: false,
    serviceHandleDomains: [".test"],
    jwtSecret: "postwire-test-jwt-secret",
    adminPassword: "postwire-test-admin",
    plcRotationKeyK256PrivateKeyHex: Buffer.from(await key.export()).toString("hex"),
    version: "0.0.0"
  }
  const server = await pds.PDS.create(pds.envToCfg(env), pds.envToSecrets(env))
  await server.start()
  const url = `http://localhost:${port}`
  const xrpc: RealPds["xrpc"] = async (nsid, options = {}) => {
    const query = options.params === undefined ? "" : `?${new URLSearchParams(options.params)}`
    const response = await fetch(`${url}/xrpc/${nsid}${query}`, {
      method: options.body === undefined ? "GET" : "POST",
      headers: {
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) })
    })
    const text = await response.text()
    return { status: response.status, json: text === "" ? null : JSON.parse(text) }
  }
  return {
    url,
    plcUrl,
    xrpc,
    account: async (name) => {
      const password = `${name}-long-password-1`
      const created = await xrpc("com.atproto.server.createAccount", {
        body: { handle: `${name}.test`, email: `${name}@example.com`, password }
      })
      if (created.status !== 200) throw new Error(`createAccount ${created.status} ${JSON.stringify(created.json)}`)
      const app = await xrpc("com.atproto.server.createAppPassword", { body: { name: "postwire" }, token: created.json.accessJwt })
      if (app.status !== 200) throw new Error(`createAppPassword ${app.status} ${JSON.stringify(app.json)}`)
      return { did: created.json.did, handle: created.json.handle, password, appPassword: app.json.password, accessJwt: created.json.accessJwt }
    },
    stop: async () => {
      await server.destroy()
      await plc.destroy()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** An HTTP proxy in front of a server; `loseNext(nsid)` drops the answer of the next call of `nsid` after the server made it. */
export interface LossyProxy {
  readonly url: string
  readonly loseNext: (nsid: string) => void
  /** Calls of `nsid` that went through (answered or lost). */
  readonly count: (nsid: string) => number
  readonly stop: () => Promise<void>
}

/** Starts the proxy in front of `target`. */
export const lossyProxy = async (target: string): Promise<LossyProxy> => {
  const armed = new Set<string>()
  const counts = new Map<string, number>()
  const upstream = new URL(target)
  const server = createServer((req, res) => {
    const nsid = (req.url ?? "").replace(/^\/xrpc\//, "").split("?")[0]!
    counts.set(nsid, (counts.get(nsid) ?? 0) + 1)
    const lose = armed.delete(nsid)
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        if (lose) {
          // The PDS did the work; its answer never reaches the caller.
          answer.resume()
          answer.on("end", () => req.socket.destroy())
          return
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    req.pipe(forward)
  })
  const port = await listen(server)
  return {
    url: `http://127.0.0.1:${port}`,
    loseNext: (nsid) => void armed.add(nsid),
    count: (nsid) => counts.get(nsid) ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
