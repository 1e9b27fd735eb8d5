/**
 * Small named builders for black-box fixtures.
 */
import { createServer } from "node:net"
import { aPng, anMp4 } from "./Media.ts"
import { call } from "./Http.ts"
import type { TestServer } from "./TestServer.ts"

/**
 * A loopback port free right now and the server settings that make it the public address: a
 * server started with them (`startServer(backend, { ...address.env, … }, { port: address.port })`)
 * serves its signed `/media-files` addresses where a platform fake can download them (the
 * Instagram fake downloads every image address on this machine, as Instagram does).
 */
export const aPublicAddress = async (): Promise<{ readonly port: number; readonly env: { readonly POSTWIRE_PUBLIC_URL: string } }> => {
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  return { port, env: { POSTWIRE_PUBLIC_URL: `http://127.0.0.1:${port}` } }
}

/** Uploads a PNG and returns its media id. */
export const anImage = async (server: TestServer, key = server.testKey): Promise<string> => {
  const reply = await call(server.baseUrl, "POST", "/v1/media", {
    key,
    body: { data: Buffer.from(aPng({ width: 4, height: 4 })).toString("base64"), filename: "pixel.png" }
  })
  if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body.id as string
}

/** Uploads an MP4 of the given length and returns its media id. */
export const aVideo = async (server: TestServer, durationSeconds = 12, key = server.testKey): Promise<string> => {
  const reply = await call(server.baseUrl, "POST", "/v1/media", {
    key,
    body: { data: Buffer.from(anMp4({ durationSeconds, width: 1080, height: 1920 })).toString("base64") }
  })
  if (reply.status !== 201) throw new Error(`upload failed: ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body.id as string
}

/** The sandbox account of a platform from the first start. */
export const accountOf = (server: TestServer, platform: string): string => {
  const found = server.accounts.find((a) => a.platform === platform)
  if (!found) throw new Error(`no ${platform} account`)
  return found.id
}

/** A create request with sensible defaults. */
export const aPost = (server: TestServer, media: ReadonlyArray<string>, overrides: Record<string, unknown> = {}) => ({
  profile_id: server.profileId,
  caption: "Hello from Postwire",
  media,
  targets: [{ account_id: accountOf(server, "photo") }],
  ...overrides
})

/** A second workspace with its own key, profile and sandbox photo account. */
export const anotherWorkspace = async (server: TestServer, scopes = ["posts:read", "posts:write", "webhooks:write"]) => {
  const ws = await server.admin("/workspaces", { name: `other-${Math.random().toString(36).slice(2)}` })
  const key = await server.admin<{ id: string; key: string }>(`/workspaces/${ws.id}/keys`, { kind: "test", scopes })
  const profile = await server.admin(`/workspaces/${ws.id}/profiles`, { name: "Other" })
  const account = await server.admin(`/workspaces/${ws.id}/accounts`, {
    profile_id: profile.id,
    platform: "photo",
    sandbox: true
  })
  return { workspaceId: ws.id, key: key.key, profileId: profile.id, accountId: account.id }
}

/** A key of the default workspace with only these scopes. */
export const aKeyWithScopes = async (server: TestServer, scopes: ReadonlyArray<string>, kind = "test") => {
  const created = await server.admin<{ id: string; key: string }>(`/workspaces/${server.workspaceId}/keys`, { kind, scopes })
  return created.key
}
