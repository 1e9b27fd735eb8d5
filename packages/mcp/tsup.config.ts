import { defineConfig } from "tsup"
import { command, library } from "../../scripts/tsup-configs.mjs"

export default defineConfig([
  library({ index: "src/index.ts" }),
  // `postwire-mcp` (bin/postwire-mcp.js runs it): an agent's client starts it for each session.
  // It serves no documentation pages: Effect's Scalar and Swagger pages (5 MB of chunks loaded
  // only by those pages' layers) are left out.
  command("postwire-mcp", "src/cli.ts", [], /\/internal\/httpApi(Scalar|Swagger)\.js$/)
])
