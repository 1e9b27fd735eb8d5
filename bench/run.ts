/**
 * `npm run bench`: every benchmark, each reporting against a baseline measured in the same run.
 * `BENCH_ONLY=posts-api,webhooks-verify` runs a subset. `scale` (it seeds a million posts, which
 * takes minutes) runs only when named: `BENCH_ONLY=scale`.
 */
const benches: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  "posts-api": () => import("./posts-api.ts"),
  "posts-mix": () => import("./posts-mix.ts"),
  "posts-wire": () => import("./posts-wire.ts"),
  "webhooks-verify": () => import("./webhooks-verify.ts"),
  "webhooks-deliveries": () => import("./webhooks-deliveries.ts"),
  embedded: () => import("./embedded.ts"),
  publishing: () => import("./publishing.ts"),
  scale: () => import("./scale.ts"),
  analytics: () => import("./analytics.ts")
}
const optIn = new Set(["scale"])

const only = process.env.BENCH_ONLY?.split(",").map((s) => s.trim())
for (const [name, load] of Object.entries(benches)) {
  if (only ? !only.includes(name) : optIn.has(name)) continue
  console.log(`\n# ${name}`)
  const bench = await load()
  await bench.run()
}
