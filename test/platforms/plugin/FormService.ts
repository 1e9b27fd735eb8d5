/**
 * Two small services of platforms whose connect starts with a form, run in-process on
 * 127.0.0.1 for the connect-form tests:
 *
 * - an app-password service: `POST /session` `{ identifier, password }` answers `200 { did,
 *   handle, accessJwt }` for the one account it knows, and `401 { error: "AuthenticationRequired",
 *   message }` for anything else;
 * - a server that registers apps before OAuth: `POST /apps` (form `client_name`,
 *   `redirect_uris`) answers `{ client_id, client_secret }`; `GET /oauth/authorize` consents at
 *   once (302 to `redirect_uri` with `code` and `state`); `POST /oauth/token` trades the code only
 *   with the app it was issued to (else `400 { error: "invalid_grant" }`); `GET /me` names the
 *   account of a bearer token.
 *
 * Every request body is kept (`received`) so a test can see what reached the platform.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** The account the app-password service knows. */
export const person = { handle: "ana.example", password: "abcd-efgh-ijkl-mnop", did: "did:plc:ana7example" } as const

/** The running service. */
export interface FormService {
  readonly url: string
  /** `{method} {path}` and body of every request, in order. */
  readonly received: Array<{ readonly call: string; readonly body: string }>
  /** Apps registered with `POST /apps`. */
  readonly apps: Map<string, { readonly secret: string; readonly redirectUri: string }>
  readonly stop: () => Promise<void>
}

const bodyOf = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = ""
    request.on("data", (chunk) => {
      text += chunk
    })
    request.on("end", () => resolve(text))
  })

const json = (status: number, value: unknown) => [status, { "content-type": "application/json" }, JSON.stringify(value)] as const

/** Starts the service on a free port. */
export const start = async (): Promise<FormService> => {
  const received: Array<{ call: string; body: string }> = []
  const apps = new Map<string, { secret: string; redirectUri: string }>()
  const codes = new Map<string, string>()
  const tokens = new Map<string, string>()
  let url = ""
  const answer = async (request: IncomingMessage): Promise<readonly [number, Record<string, string>, string]> => {
    const address = new URL(request.url ?? "/", url)
    const body = await bodyOf(request)
    received.push({ call: `${request.method} ${address.pathname}`, body })
    if (request.method === "POST" && address.pathname === "/session") {
      const input = JSON.parse(body) as { identifier?: string; password?: string }
      if (input.identifier !== person.handle || input.password !== person.password) {
        return json(401, { error: "AuthenticationRequired", message: "Invalid identifier or password" })
      }
      return json(200, { did: person.did, handle: person.handle, accessJwt: `jwt-${randomBytes(6).toString("hex")}` })
    }
    if (request.method === "POST" && address.pathname === "/apps") {
      const form = new URLSearchParams(body)
      const id = `app-${apps.size + 1}`
      const secret = randomBytes(12).toString("hex")
      apps.set(id, { secret, redirectUri: form.get("redirect_uris") ?? "" })
      return json(200, { client_id: id, client_secret: secret })
    }
    if (request.method === "GET" && address.pathname === "/oauth/authorize") {
      const app = apps.get(address.searchParams.get("client_id") ?? "")
      const redirectUri = address.searchParams.get("redirect_uri") ?? ""
      if (app === undefined || app.redirectUri !== redirectUri) return json(400, { error: "invalid_client" })
      const code = randomBytes(8).toString("hex")
      codes.set(code, address.searchParams.get("client_id")!)
      const back = new URL(redirectUri)
      back.searchParams.set("code", code)
      back.searchParams.set("state", address.searchParams.get("state") ?? "")
      return [302, { location: back.toString() }, ""]
    }
    if (request.method === "POST" && address.pathname === "/oauth/token") {
      const form = new URLSearchParams(body)
      const clientId = form.get("client_id") ?? ""
      const code = form.get("code") ?? ""
      if (codes.get(code) !== clientId || apps.get(clientId)?.secret !== form.get("client_secret")) {
        return json(400, { error: "invalid_grant", error_description: "The provided authorization grant is invalid" })
      }
      codes.delete(code)
      const token = randomBytes(12).toString("hex")
      tokens.set(token, clientId)
      return json(200, { access_token: token, token_type: "Bearer", scope: "write" })
    }
    if (request.method === "GET" && address.pathname === "/me") {
      const token = (request.headers.authorization ?? "").replace(/^Bearer /, "")
      if (!tokens.has(token)) return json(401, { error: "The access token is invalid" })
      return json(200, { id: "109", username: "budi", display_name: "Budi" })
    }
    return json(404, { error: "not found" })
  }
  const server: Server = createServer((request, response) => {
    answer(request).then(([status, headers, text]) => response.writeHead(status, headers).end(text))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    received,
    apps,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
