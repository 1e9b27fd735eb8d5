import { createHmac, timingSafeEqual } from "node:crypto"
import { describe, expect, it } from "vitest"
import { sign, verify } from "@postwire/webhooks"
import { aPostFailedEvent, aSecret, NOW } from "./builders.ts"

// An independent implementation of the scheme as the README spells it, written the way a
// Stripe-style receiver would, on node:crypto: HMAC-SHA256 keyed with the secret string,
// over "<t>.<raw body>", hex, compared with timingSafeEqual.
const independentSign = (payload: string, secret: string, timestamp: number): string => {
  const mac = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex")
  return `t=${timestamp},v1=${mac}`
}

const independentVerify = (payload: string, header: string, secret: string, nowSeconds: number): boolean => {
  const entries = header.split(",").map((entry) => {
    const equals = entry.indexOf("=")
    return [entry.slice(0, equals), entry.slice(equals + 1)] as const
  })
  const timestamp = Number(entries.find(([key]) => key === "t")?.[1])
  const expected = Buffer.from(createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex"))
  const matches = entries
    .filter(([key]) => key === "v1")
    .some(([, value]) => {
      const candidate = Buffer.from(value)
      return candidate.length === expected.length && timingSafeEqual(candidate, expected)
    })
  return matches && Math.abs(nowSeconds - timestamp) <= 300
}

// Non-ASCII text makes a mismatch in how either side encodes the body show up.
const payload = JSON.stringify(
  aPostFailedEvent({
    data: {
      ...aPostFailedEvent().data,
      error: { ...aPostFailedEvent().data.error, message_id: "Ukuran video melebihi batas — coba kompres 🎬" }
    }
  })
)

describe("compatibility with an independent node:crypto implementation", () => {
  it("has our sign output accepted by the independent verifier", async () => {
    const secret = aSecret()

    const header = await sign(payload, secret, { timestamp: NOW })

    expect(independentVerify(payload, header, secret, NOW)).toBe(true)
    expect(independentVerify(payload, header, aSecret(), NOW)).toBe(false)
  })

  it("has every v1 entry of a rotation header accepted by the independent verifier", async () => {
    const previous = aSecret()
    const next = aSecret()

    const header = await sign(payload, [previous, next], { timestamp: NOW })

    expect(independentVerify(payload, header, previous, NOW)).toBe(true)
    expect(independentVerify(payload, header, next, NOW)).toBe(true)
  })

  it("produces exactly the independent signer's header", async () => {
    const secret = aSecret()

    expect(await sign(payload, secret, { timestamp: NOW })).toBe(independentSign(payload, secret, NOW))
  })

  it("accepts the independent signer's header in verify", async () => {
    const secret = aSecret()
    const header = independentSign(payload, secret, NOW)

    const event = await verify(payload, header, secret, { now: NOW })

    expect(event).toEqual(JSON.parse(payload))
  })

  it("reproduces the worked example of the README", async () => {
    const secret = "whsec_5Ox1kH3f9gq2D6cJtqQhFZ2m0Vw8Yb7nXe4RaLsPzUk"
    const body =
      '{"id":"evt_01JD8XK2M3N4P5Q6R7S8T9V0W1","type":"post.approved","created_at":"2026-11-22T01:02:03.456Z","livemode":false,"data":{}}'
    const header = "t=1795309323,v1=2f56b80c46ee8d7c35f06506520f5a1bfbad2139dd87965043f6d38a9799c30f"

    expect(await sign(body, secret, { timestamp: 1795309323 })).toBe(header)
    expect(independentSign(body, secret, 1795309323)).toBe(header)
    await expect(verify(body, header, secret, { now: 1795309323 })).resolves.toMatchObject({ type: "post.approved" })
  })

  it("rejects the independent signer's header made with another secret", async () => {
    const header = independentSign(payload, aSecret(), NOW)

    await expect(verify(payload, header, aSecret(), { now: NOW })).rejects.toMatchObject({ reason: "no_matching_signature" })
  })
})
