/**
 * Workspace settings: `PATCH /admin/v1/workspaces/{id}` and `postwire admin workspace update`
 * change where connect and approval redirects may go, and a refused redirect names what is allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAdmin } from "../../packages/server/src/cli/Admin.ts"
import { aConnectLink } from "../support/Connect.ts"
import { call, errorOf } from "../support/Http.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

describe.each(backends())("workspace settings on %s", (backend) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer(backend)
  })
  afterAll(async () => {
    await server?.stop()
  })

  const admin = async (...args: Array<string>) => {
    const lines: Array<string> = []
    const code = await runAdmin([...args, "--url", server.baseUrl, "--admin-token", server.adminToken], {}, (line) => lines.push(line))
    return { code, out: lines.join("\n") }
  }
  const patch = (id: string, body: unknown) =>
    call(server.baseUrl, "PATCH", `/admin/v1/workspaces/${id}`, { key: server.adminToken, body })

  it("names the allowed domains when it refuses a redirect, in both languages", async () => {
    const reply = await aConnectLink(server, { platform: "photo", redirect_url: "https://app.acme.com/connected" })
    expect(reply.status).toBe(400)
    const error = errorOf(reply)
    expect(error).toMatchObject({ code: "invalid_redirect_url", field: "redirect_url" })
    expect(error.message).toBe("The redirect_url must be https on one of the workspace's allowed domains: example.com, or a subdomain of one.")
    expect(error.message_id).toBe("redirect_url harus https pada salah satu domain yang diizinkan workspace: example.com, atau subdomainnya.")
  })

  it("allows a new domain from the command line, and the redirect then goes through", async () => {
    const updated = await admin("workspace", "update", "--workspace", server.workspaceId, "--allowed-redirect-domains", "acme.com, Example.com", "--json")
    expect(updated.code).toBe(0)
    expect(JSON.parse(updated.out)).toMatchObject({ id: server.workspaceId, name: "default", allowed_redirect_domains: ["acme.com", "example.com"] })

    const shown = await admin("workspace", "get", "--workspace", server.workspaceId, "--json")
    expect(JSON.parse(shown.out).allowed_redirect_domains).toEqual(["acme.com", "example.com"])

    const reply = await aConnectLink(server, { platform: "photo", redirect_url: "https://app.acme.com/connected" })
    expect(reply.status).toBe(201)
  })

  it("says how to allow a domain when the workspace allows none", async () => {
    const emptied = await patch(server.workspaceId, { allowed_redirect_domains: [] })
    expect(emptied.status).toBe(200)
    expect(emptied.body.allowed_redirect_domains).toEqual([])
    const reply = await aConnectLink(server, { platform: "photo", redirect_url: "https://app.acme.com/connected" })
    expect(errorOf(reply).message).toBe(
      `The redirect_url must be https on one of the workspace's allowed domains: it allows none yet (an operator adds them with \`postwire admin workspace update --workspace ${server.workspaceId} --allowed-redirect-domains …\` or \`PATCH /admin/v1/workspaces/${server.workspaceId}\`).`
    )
  })

  it("keeps what a PATCH leaves out, and renames", async () => {
    await patch(server.workspaceId, { allowed_redirect_domains: ["example.com"] })
    const renamed = await patch(server.workspaceId, { name: "  Acme  " })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ name: "Acme", allowed_redirect_domains: ["example.com"] })
    const listed = await call(server.baseUrl, "GET", "/admin/v1/workspaces", { key: server.adminToken })
    expect(listed.body.data).toEqual([expect.objectContaining({ id: server.workspaceId, name: "Acme" })])
  })

  it("refuses a bad domain naming its place, an empty name, and an unknown workspace, changing nothing", async () => {
    const bad = await patch(server.workspaceId, { allowed_redirect_domains: ["acme.com", "https://acme.com/"] })
    expect(bad.status).toBe(400)
    expect(errorOf(bad)).toMatchObject({ code: "invalid_request", field: "allowed_redirect_domains[1]" })
    const empty = await patch(server.workspaceId, { name: " " })
    expect(errorOf(empty)).toMatchObject({ code: "invalid_request", field: "name" })
    const unknown = await patch("ws_01JD0000000000000000000000", { name: "x" })
    expect(unknown.status).toBe(404)
    expect(errorOf(unknown).code).toBe("not_found")
    const unchanged = await call(server.baseUrl, "GET", `/admin/v1/workspaces/${server.workspaceId}`, { key: server.adminToken })
    expect(unchanged.body).toMatchObject({ name: "Acme", allowed_redirect_domains: ["example.com"] })
  })

  it("asks for something to change on the command line", async () => {
    await expect(admin("workspace", "update", "--workspace", server.workspaceId)).rejects.toThrow("give --name, --allowed-redirect-domains, or both")
  })

  it("refuses unknown query parameters on the admin lists, naming them", async () => {
    for (const path of [
      `/admin/v1/workspaces/${server.workspaceId}/accounts?colour=red`,
      `/admin/v1/workspaces/${server.workspaceId}/profiles?colour=red`,
      "/admin/v1/workspaces?colour=red",
      `/admin/v1/workspaces/${server.workspaceId}/keys?colour=red`
    ]) {
      const reply = await call(server.baseUrl, "GET", path, { key: server.adminToken })
      expect(reply.status, path).toBe(400)
      expect(errorOf(reply), path).toMatchObject({ code: "invalid_request", field: "colour" })
    }
    const fine = await call(server.baseUrl, "GET", `/admin/v1/workspaces/${server.workspaceId}/accounts?limit=5`, { key: server.adminToken })
    expect(fine.status).toBe(200)
  })
})
