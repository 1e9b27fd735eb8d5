import { createHmac, randomBytes } from "node:crypto"
import { sign, verify } from "@postwire/webhooks"
import Stripe from "stripe"

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
 * signed payload and the `stripe` package's `webhooks.constructEvent`, measured in the same run,
 * and the ratios.
 */
export async function run(): Promise<void> {
  const header = await sign(body, secret)
  const timestamp = header.slice(2, header.indexOf(","))

  // Stripe's verifier checks the same scheme (t=…,v1=… over "<t>.<body>"): the reference point
  // receivers know.
  const stripe = new Stripe("sk_test_bench")
  const candidates = {
    verify: () => verify(body, header, secret),
    hmac: () => createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex"),
    stripe: () => stripe.webhooks.constructEvent(body, header, secret)
  }
  // Interleaved rounds, the median of each: a busy machine slows all three alike.
  const rounds: Record<keyof typeof candidates, Array<number>> = { verify: [], hmac: [], stripe: [] }
  // Nine rounds: the median of five moved by a tenth from run to run on a shared machine.
  for (let round = 0; round < 9; round++) {
    for (const [name, operation] of Object.entries(candidates)) {
      rounds[name as keyof typeof candidates].push(await measureOpsPerSecond(operation, 300))
    }
  }
  const median = (values: Array<number>): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const verifyRate = median(rounds.verify)
  const hmacRate = median(rounds.hmac)
  const stripeRate = median(rounds.stripe)

  console.log(`webhooks: verify a ${Buffer.byteLength(body)}-byte post.published delivery`)
  console.log(`  @postwire/webhooks verify      ${formatRate(verifyRate)}`)
  console.log(`  node:crypto HMAC-SHA256 (base) ${formatRate(hmacRate)}`)
  console.log(`  stripe webhooks.constructEvent ${formatRate(stripeRate)}`)
  console.log(`  ratio verify / base            ${(verifyRate / hmacRate).toFixed(2)}`)
  console.log(`  ratio verify / constructEvent  ${(verifyRate / stripeRate).toFixed(2)}`)
}
