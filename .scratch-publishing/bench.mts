import { run } from "/work/main/bench/publishing.ts"
await run()
