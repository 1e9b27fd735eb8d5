/**
 * The tool server's registrations, shared by both transports: the tools with their handlers and
 * the resources, and what the server tells a client about itself.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { McpProtocol, McpServer } from "effect/ai"
import type { McpCaller } from "./McpCaller.ts"
import * as McpResources from "./McpResources.ts"
import * as ToolHandlers from "./ToolHandlers.ts"
import * as Tools from "./Tools.ts"

/**
 * The options of a tool server.
 *
 * @since 0.1.0
 */
export interface Options extends Tools.ToolOptions {
  /** Where the error reference is (`{docsBaseUrl}/docs/errors#code`). */
  readonly docsBaseUrl: string
}

/**
 * The name and version the server reports in `initialize`.
 *
 * @since 0.1.0
 */
export const serverInfo = { name: "postwire", version: "0.1.0" } as const

/**
 * The MCP revisions served, newest first: every revision with initialization that the official
 * TypeScript SDK speaks (1.32 offers 2025-11-25).
 *
 * @since 0.1.0
 */
export const protocols = [
  McpProtocol.v2025_11_25,
  McpProtocol.v2025_06_18,
  McpProtocol.v2025_03_26,
  McpProtocol.v2024_11_05
] as const

/**
 * What the server tells a model about using it, in `initialize`.
 *
 * @since 0.1.0
 */
export const instructions = (options: Tools.ToolOptions): string =>
  [
    `Postwire publishes a caption with media to social accounts (${Tools.platformsOf(options).map((p) => `${p.displayName} = ${p.name}`).join(", ")}).`,
    "Typical flow: list_accounts (status and remaining quota) → upload_media → validate_post → create_post → get_post to follow each target.",
    options.allowSkipApproval
      ? "Posts wait for a person's approval by default (share approval.url); this server's operator allows approval.mode \"none\"."
      : "Every post waits for a person's approval: share the approval.url that create_post returns; you cannot approve it yourself.",
    Tools.consentRule(options),
    "Mutating calls are idempotent: sending the same call again returns the first result.",
    "Failed calls return the API's error object (code, message, field, retryable, retry_after_seconds on 429); explain_error and the postwire://errors resource explain codes; postwire://platform-rules has caption and media limits."
  ].join("\n")

/**
 * The tools, their handlers and the resources, for a server over any transport.
 *
 * @since 0.1.0
 */
export const registrations = (options: Options): Layer.Layer<never, never, McpServer.McpServer | McpCaller> => {
  const toolkit = Tools.make(options)
  return Layer.mergeAll(
    McpServer.toolkit(toolkit).pipe(Layer.provide(ToolHandlers.layer(toolkit, options))),
    McpResources.layer(options)
  )
}
