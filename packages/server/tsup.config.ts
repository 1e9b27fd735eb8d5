import { defineConfig } from "tsup"
import { command, library } from "../../scripts/tsup-configs.mjs"

export default defineConfig([
  library({ index: "src/index.ts" }),
  // `postwire` (bin/postwire.js runs it). PGlite reads its WebAssembly and data files from beside
  // its own module; the S3 and SMTP clients are loaded only when a deployment configures them.
  command("postwire", "src/cli/main.ts", ["@electric-sql/pglite", "@aws-sdk/", "nodemailer", "sharp"])
])
