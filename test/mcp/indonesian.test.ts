/**
 * `message_id` is Indonesian throughout where the request is refused before it reaches the API:
 * the SDK's own check of a call against the contract, and so the tool server's tools (which call
 * the API through the SDK). It used to carry Effect's English ("Expected no excess property",
 * "Missing key", "Expected number") in both `message` and `message_id`.
 */
import { Postwire, PostwireApiError } from "@postwire/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startServer, type TestServer } from "../support/TestServer.ts"
import { callTool, type Connected, connectHttp, toolErrorOf } from "./McpClients.ts"

/** The words of Effect's own schema messages, which are English only. */
const effectEnglish = /Expected|Missing key|excess property|non-empty/

describe("Indonesian texts of requests refused before the API", () => {
  let server: TestServer
  let agent: Connected
  beforeAll(async () => {
    server = await startServer("embedded")
    agent = await connectHttp(server.baseUrl, { key: server.testKey, language: "id" })
  })
  afterAll(async () => {
    await agent?.close()
    await server?.stop()
  })

  it.each([
    ["list_posts", { bogus: 1 }, "bogus", "bukan kolom yang dikenal"],
    ["validate_post", { nope: 1 }, "nope", "bukan kolom yang dikenal"],
    ["list_posts", { limit: "ten" }, "limit", "harus berupa angka"],
    ["list_accounts", { profile_id: 5 }, "profile_id", "harus berupa teks"]
  ])("a tool call %s %j is refused in Indonesian, naming %s", async (tool, args, field, reason) => {
    const error = toolErrorOf(await callTool(agent.client, tool, args))
    expect(error).toMatchObject({ code: "invalid_request", field })
    expect(error.message_id).toBe(`Permintaan tidak valid pada ${field}: ${reason}`)
    expect(error.message).toBe(error.message_id)
    for (const issue of error.issues ?? []) expect(issue.message_id).not.toMatch(effectEnglish)
  })

  it("a tool call missing a required argument names it as required, in Indonesian", async () => {
    const error = toolErrorOf(await callTool(agent.client, "create_post", { profile_id: server.profileId, caption: "x" }))
    const messages = [error, ...(error.issues ?? [])].map((item: { message_id: string }) => item.message_id)
    expect(messages).toContain("Permintaan tidak valid pada media: wajib diisi")
    for (const message of messages) expect(message).not.toMatch(effectEnglish)
  })

  it("the SDK's own refusals carry an Indonesian messageId and an English message", async () => {
    const postwire = new Postwire({ apiKey: server.testKey, baseUrl: server.baseUrl, locale: "en" })
    const excess = await postwire.posts.list({ bogus: 1 } as never).then(
      () => undefined,
      (error: unknown) => error
    )
    expect(excess).toBeInstanceOf(PostwireApiError)
    expect(excess).toMatchObject({
      code: "invalid_request",
      field: "bogus",
      message: "The request is invalid at bogus: is not a known field",
      messageId: "Permintaan tidak valid pada bogus: bukan kolom yang dikenal"
    })
    const emptyId = await postwire.posts.get("").then(
      () => undefined,
      (error: unknown) => error
    )
    expect(emptyId).toMatchObject({
      field: "id",
      message: "The request is invalid at id: must not be empty",
      messageId: "Permintaan tidak valid pada id: tidak boleh kosong"
    })
  })
})
