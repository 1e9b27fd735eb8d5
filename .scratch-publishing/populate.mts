import { startFleet } from "/work/main/test/publishing/fleet.ts"
const fleet = await startFleet({ accounts: 25 })
await fleet.createPosts(1000)
console.log("SCHEMA", process.env.DATABASE_URL)
const u = new URL(fleet.api.baseUrl)
console.log("ready")
await new Promise((r) => setTimeout(r, 120000))
await fleet.stop()
