import { startFleet, publishedCaptions } from "/work/main/test/publishing/fleet.ts"
const t0 = Date.now()
const fleet = await startFleet({ accounts: 25 })
console.log("fleet up", Date.now() - t0)
const t1 = Date.now()
await fleet.createPosts(1000)
console.log("1000 posts", Date.now() - t1)
const t2 = Date.now()
await Promise.all(Array.from({ length: Number(process.env.W ?? 3) }, () => fleet.startWorker()))
console.log("workers", Date.now() - t2)
const t3 = Date.now()
try {
  await fleet.waitForPublished(1000, 60000)
} catch (e) { console.log(String(e).slice(0, 6000)) }
console.log("published", fleet.fake.media.length, Date.now() - t3, "dups", fleet.fake.duplicatePublishes)
for (const w of fleet.workers) console.log(w.name, (w.output().match(/target published/g) ?? []).length)
import("node:fs").then((fs) => fs.writeFileSync("/tmp/pwdebug/worker.log", fleet.workers[0].output()))
await fleet.stop()
