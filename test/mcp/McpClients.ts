/**
 * The official MCP TypeScript SDK's client, connected the ways agents connect: Streamable HTTP
 * to a running server's `/mcp`, or stdio to `postwire mcp` as a child process.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { expect } from "vitest"

/** The `postwire` command, as `npx postwire` runs it from a clean clone (TypeScript sources through tsx). */
export const postwireBin = new URL("../../packages/server/bin/postwire.js", import.meta.url).pathname

/** The `postwire-mcp` command of `@postwire/mcp`. */
export const postwireMcpBin = new URL("../../packages/mcp/bin/postwire-mcp.js", import.meta.url).pathname

/** A connected client and its transport. */
export interface Connected {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport | StdioClientTransport
  readonly close: () => Promise<void>
}

/** Options of an HTTP connection. */
export interface HttpConnectOptions {
  readonly key?: string | undefined
  readonly language?: string | undefined
  /** Sends each request with this fetch (e.g. to another instance). */
  readonly fetch?: typeof fetch | undefined
}

/** Connects the SDK client to `{baseUrl}/mcp` with the key as bearer token. */
export const connectHttp = async (baseUrl: string, options: HttpConnectOptions = {}): Promise<Connected & { transport: StreamableHTTPClientTransport }> => {
  const headers: Record<string, string> = {}
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  if (options.language !== undefined) headers["accept-language"] = options.language
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch })
  })
  const client = new Client({ name: "postwire-tests", version: "1.0.0" })
  await client.connect(transport)
  return { client, transport, close: () => client.close() }
}

/** Starts `postwire mcp` (or another command) as an IDE does, and connects the SDK client over its stdio. */
export const connectStdio = async (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  bin = postwireBin
): Promise<Connected & { transport: StdioClientTransport; stderr: () => string }> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...args],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const client = new Client({ name: "postwire-tests", version: "1.0.0" })
  await client.connect(transport)
  return { client, transport, close: () => client.close(), stderr: () => stderr }
}

/** A tool's answer, as the SDK returns it. */
export interface ToolAnswer {
  readonly isError?: boolean | undefined
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: Record<string, unknown> | undefined
}

/** Calls a tool and returns the SDK's answer. */
export const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer

/** The result of a successful call; its text content is the same JSON. */
export const resultOf = (answer: ToolAnswer): any => {
  expect(answer.isError, answer.content[0]?.text).toBeFalsy()
  expect(JSON.parse(answer.content[0]?.text ?? "null")).toEqual(answer.structuredContent)
  return answer.structuredContent
}

/** The API error object of a failed call, checked for the shared shape. */
export const toolErrorOf = (answer: ToolAnswer): any => {
  expect(answer.isError, JSON.stringify(answer)).toBe(true)
  const body = JSON.parse(answer.content[0]?.text ?? "null")
  expect(body.error).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    message_id: expect.any(String),
    retryable: expect.any(Boolean),
    docs: expect.stringMatching(/\/docs\/errors#/),
    status: expect.any(Number)
  })
  return body.error
}

/** The text of a resource read. */
export const textOf = (read: { readonly contents: ReadonlyArray<object> }): string => {
  const first = read.contents[0]
  const text = first !== undefined && "text" in first ? first.text : undefined
  expect(typeof text).toBe("string")
  return text as string
}

/**
 * The approval link in the e-mail the server wrote for the post with `caption` (no SMTP server is
 * set in tests: mail goes to `<data directory>/mail`); fails when there is none.
 */
export const approvalLinkMailed = (server: { readonly dataDir: string }, caption: string): string => {
  const directory = join(server.dataDir, "mail")
  const mails = existsSync(directory) ? readdirSync(directory).map((name) => readFileSync(join(directory, name), "utf8")) : []
  const mail = mails.find((text) => text.includes(caption))
  const link = mail?.match(/https?:\/\/\S+\/approve\/[A-Za-z0-9_-]{43}/)?.[0]
  if (link === undefined) throw new Error(`no approval e-mail for "${caption}" in ${directory}`)
  return link
}
