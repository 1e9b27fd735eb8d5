/**
 * The `postwire-mcp` command: the tool server over stdio (same as `postwire mcp`).
 *
 * @since 0.1.0
 */
import { main } from "./McpStdio.ts"

main(process.argv.slice(2), process.env)
