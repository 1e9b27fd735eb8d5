/**
 * `@postwire/mcp`: the Postwire tool server for AI agents over the Model Context Protocol, on
 * stdio ({@link McpStdio}) and Streamable HTTP ({@link McpHttp}), built on `@postwire/client`.
 *
 * @since 0.1.0
 */
export * as IdempotencyKey from "./IdempotencyKey.ts"
export * as McpCaller from "./McpCaller.ts"
export * as McpHttp from "./McpHttp.ts"
export * as McpResources from "./McpResources.ts"
export * as McpStdio from "./McpStdio.ts"
export * as PostwireMcp from "./PostwireMcp.ts"
export * as ToolError from "./ToolError.ts"
export * as ToolHandlers from "./ToolHandlers.ts"
export * as Tools from "./Tools.ts"
