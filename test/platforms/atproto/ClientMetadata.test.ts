/**
 * atproto OAuth's client metadata document, served by Postwire itself
 * (https://atproto.com/specs/oauth, "Client ID Metadata Document"): on an https deployment the
 * client id is the address of `GET /connect/documents/atproto/client-metadata.json`, whose
 * `client_id` must be that very address and whose `redirect_uris` name Postwire's callback; a
 * plain-http public deployment serves none (atproto OAuth needs https), nor does a deployment
 * that names a document hosted elsewhere; an unknown document or platform is 404 in the shared
 * error shape. Over real HTTP, on the embedded database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as OAuth from "../../../packages/platforms/src/atproto/OAuth.ts"
import { call } from "../../support/Http.ts"
import { startServer, type TestServer } from "../../support/TestServer.ts"

const path = "/connect/documents/atproto/client-metadata.json"

describe("atproto client metadata document", () => {
  let https: TestServer
  let http: TestServer
  let elsewhere: TestServer

  beforeAll(async () => {
    ;[https, http, elsewhere] = await Promise.all([
      startServer("embedded", { POSTWIRE_PUBLIC_URL: "https://posts.acme.test/postwire" }),
      startServer("embedded", { POSTWIRE_PUBLIC_URL: "http://posts.acme.test" }),
      startServer("embedded", {
        POSTWIRE_PUBLIC_URL: "https://posts.acme.test",
        POSTWIRE_ATPROTO_OAUTH_CLIENT_ID: "https://static.acme.test/bluesky-client.json"
      })
    ])
  })
  afterAll(async () => {
    await Promise.all([https?.stop(), http?.stop(), elsewhere?.stop()])
  })

  it("serves the document whose client_id is its own public address, with the callback under the same base", async () => {
    const reply = await call(https.baseUrl, "GET", path)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toContain("application/json")
    expect(reply.body).toMatchObject({
      client_id: `https://posts.acme.test/postwire${path}`,
      client_uri: "https://posts.acme.test/postwire",
      redirect_uris: ["https://posts.acme.test/postwire/connect/callback/atproto"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "web",
      dpop_bound_access_tokens: true
    })
    expect(String(reply.body.scope).split(" ")).toContain("atproto")
  })

  it("serves none on a plain-http public deployment, nor when the client id names a document hosted elsewhere", async () => {
    for (const server of [http, elsewhere]) {
      const reply = await call(server.baseUrl, "GET", path)
      expect(reply.status).toBe(404)
      expect(reply.body.error.code).toBe("not_found")
    }
  })

  it("answers 404 not_found for a document or platform that has none", async () => {
    for (const other of ["/connect/documents/atproto/other.json", "/connect/documents/fediverse/client-metadata.json", "/connect/documents/Nope!/x"]) {
      const reply = await call(https.baseUrl, "GET", other)
      expect(reply.status, other).toBe(404)
      expect(reply.body.error.code, other).toBe("not_found")
    }
  })

  it("starts OAuth with that address as the client id on https, the loopback client on 127.0.0.1, none on public http", () => {
    expect(OAuth.clientIdFor("https://posts.acme.test/postwire/connect/callback/atproto", null)).toBe(`https://posts.acme.test/postwire${path}`)
    expect(OAuth.clientIdFor("https://posts.acme.test/connect/callback/atproto", "https://static.acme.test/c.json")).toBe("https://static.acme.test/c.json")
    expect(OAuth.clientIdFor("http://127.0.0.1:8080/connect/callback/atproto", null)).toMatch(/^http:\/\/localhost\?redirect_uri=/)
    expect(OAuth.clientIdFor("http://posts.acme.test/connect/callback/atproto", null)).toBeNull()
  })
})
