import { createHmac, randomBytes } from "node:crypto"
import { sign, verify } from "@postwire/webhooks"

const secret = `whsec_${randomBytes(32).toString("base64url")}`

const body = JSON.stringify({
  id: "evt_01JD8XK2M3N4P5Q6R7S8T9V0W1",
  type: "post.published",
  created_at: "2026-11-22T01:02:03.456Z",
  livemode: true,
  data: {
    post_id: "post_01JD8XK2M3N4P5Q6R7S8T9V0W2",
    target_id: "tgt_01JD8XK2M3N4P5Q6R7S8T9V0W3",
    platform: "photo",
    permalink: "https://example.com/p/C0ffeeBeans123/",
    published_at: "2026-11-22T01:02:03.123Z"
  }
})

const measureOpsPerSecond = async (operation: () => unknown, durationMs = 1000): Promise<number> => {
  for (let i = 0; i < 500; i++) await operation()
  let operations = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < durationMs) {
    for (let i = 0; i < 100; i++) await operation()
    operations += 100
    elapsed = performance.now() - start
  }
  return (operations * 1000) / elapsed
}

const formatRate = (opsPerSecond: number): string => `${Math.round(opsPerSecond).toLocaleString("en-US")} ops/s`

/**
 * Prints how many deliveries per second `verify` checks (HMAC with the key prepared once, header parsing,
 * constant-time comparison, JSON parsing) beside a bare node:crypto HMAC-SHA256 of the same
 * signed payload, measured in the same run, and their ratio.
 */
export async function run(): Promise<void> {
  const header = await sign(body, secret)
  const timestamp = header.slice(2, header.indexOf(","))

  const verifyRate = await measureOpsPerSecond(() => verify(body, header, secret))
  const hmacRate = await measureOpsPerSecond(() =>
    createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex")
  )

  console.log(`webhooks: verify a ${Buffer.byteLength(body)}-byte post.published delivery`)
  console.log(`  @postwire/webhooks verify      ${formatRate(verifyRate)}`)
  console.log(`  node:crypto HMAC-SHA256 (base) ${formatRate(hmacRate)}`)
  console.log(`  ratio verify / base            ${(verifyRate / hmacRate).toFixed(2)}`)
}
