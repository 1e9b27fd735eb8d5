import { describe, expect, it } from "vitest"
import { EVENT_ID_HEADER, SIGNATURE_HEADER, sign } from "@postwire/webhooks"
import { aPostPublishedEvent, aSecret, NOW } from "./builders.ts"

const body = JSON.stringify(aPostPublishedEvent())

describe("sign", () => {
  it("returns t=<unix seconds>,v1=<64 lowercase hex characters>", async () => {
    expect(await sign(body, aSecret(), { timestamp: NOW })).toMatch(new RegExp(`^t=${NOW},v1=[0-9a-f]{64}$`))
  })

  it("gives the same header for the same body, secret and time, however the body is passed", async () => {
    const secret = aSecret()
    const fromText = await sign(body, secret, { timestamp: NOW })

    expect(await sign(Buffer.from(body), secret, { timestamp: NOW })).toBe(fromText)
    expect(await sign(new TextEncoder().encode(body).buffer, secret, { timestamp: NOW })).toBe(fromText)
  })

  it("gives a different signature for another secret, body or time", async () => {
    const secret = aSecret()
    const header = await sign(body, secret, { timestamp: NOW })

    expect(await sign(body, aSecret(), { timestamp: NOW })).not.toBe(header)
    expect(await sign(`${body} `, secret, { timestamp: NOW })).not.toBe(header)
    expect((await sign(body, secret, { timestamp: NOW + 1 })).split(",")[1]).not.toBe(header.split(",")[1])
  })

  it("adds one v1 entry per secret, in order", async () => {
    const previous = aSecret()
    const next = aSecret()

    const header = await sign(body, [previous, next], { timestamp: NOW })

    expect(header).toBe(
      [
        `t=${NOW}`,
        (await sign(body, previous, { timestamp: NOW })).split(",")[1],
        (await sign(body, next, { timestamp: NOW })).split(",")[1]
      ].join(",")
    )
  })

  it("takes the timestamp as a Date, truncated to whole seconds", async () => {
    const header = await sign(body, aSecret(), { timestamp: new Date(NOW * 1000 + 999) })

    expect(header.startsWith(`t=${NOW},`)).toBe(true)
  })

  it("uses the current time by default", async () => {
    const before = Math.floor(Date.now() / 1000)
    const header = await sign(body, aSecret())
    const after = Math.floor(Date.now() / 1000)

    const timestamp = Number(header.slice(2, header.indexOf(",")))
    expect(timestamp).toBeGreaterThanOrEqual(before)
    expect(timestamp).toBeLessThanOrEqual(after)
  })

  it.each([
    ["fractional", NOW + 0.5],
    ["negative", -1],
    ["unsafe-integer", Number.MAX_SAFE_INTEGER + 2]
  ])("throws a RangeError for a %s timestamp", async (_, timestamp) => {
    await expect(sign(body, aSecret(), { timestamp })).rejects.toBeInstanceOf(RangeError)
  })

  it("throws a TypeError for a parsed body", async () => {
    await expect(sign(JSON.parse(body), aSecret())).rejects.toBeInstanceOf(TypeError)
  })

  it("names the headers exactly as the service sends them", () => {
    expect(SIGNATURE_HEADER).toBe("SERVICE-Signature")
    expect(EVENT_ID_HEADER).toBe("SERVICE-Event-Id")
  })
})
