import { defineConfig } from "tsup"
import { command, library } from "../../scripts/tsup-configs.mjs"

export default defineConfig([
  library({ index: "src/index.ts" }),
  // `postwire-mcp` (bin/postwire-mcp.js runs it): an agent's client starts it for each session.
  command("postwire-mcp", "src/cli.ts")
])
