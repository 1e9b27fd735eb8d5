import { describe, expect, it } from "vitest"
import { DEFAULT_TOLERANCE_SECONDS, sign, verify, WebhookVerificationError } from "@postwire/webhooks"
import { aDelivery, aPostFailedEvent, aPostPublishedEvent, aSecret, expectRejection, NOW } from "./builders.ts"

const v1Of = (header: string): string => header.split(",").find((entry) => entry.startsWith("v1="))!.slice(3)

describe("verify", () => {
  describe("an authentic delivery", () => {
    it("returns the event with its data typed by event type", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      const event = await verify(body, header, secret, { now: NOW })

      expect(event).toEqual(aPostPublishedEvent())
      if (event.type !== "post.published") throw new Error(`expected post.published, got ${event.type}`)
      expect(event.data.permalink).toBe("https://example.com/p/C0ffee/")
    })

    it("returns a post.failed event with the shared error object", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret, body: JSON.stringify(aPostFailedEvent()) })

      const event = await verify(body, header, secret, { now: NOW })

      if (event.type !== "post.failed") throw new Error(`expected post.failed, got ${event.type}`)
      expect(event.data.error).toMatchObject({ code: "media_too_large", retryable: false, field: "media[0]" })
    })

    it("returns the test flag of a synthetic test event", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret, body: JSON.stringify({ ...aPostPublishedEvent(), test: true }) })

      expect(await verify(body, header, secret, { now: NOW })).toHaveProperty("test", true)
    })

    it("accepts an event type this version does not know", async () => {
      const secret = aSecret()
      const future = { id: "evt_1", type: "profile.renamed", created_at: "2027-01-01T00:00:00.000Z", livemode: true, data: {} }
      const { body, header } = await aDelivery({ secret, body: JSON.stringify(future) })

      expect(await verify(body, header, secret, { now: NOW })).toEqual(future)
    })

    it("checks against the system clock when no now is given", async () => {
      const secret = aSecret()
      const body = JSON.stringify(aPostPublishedEvent())

      const event = await verify(body, await sign(body, secret), secret)

      expect(event.id).toBe(aPostPublishedEvent().id)
    })
  })

  describe("raw bodies", () => {
    const bodyText = JSON.stringify(aPostPublishedEvent({ data: { ...aPostPublishedEvent().data, permalink: "https://example.com/é/🎉" } }))

    it.each([
      ["a string", () => bodyText],
      ["a Uint8Array", () => new TextEncoder().encode(bodyText)],
      ["a Buffer", () => Buffer.from(bodyText, "utf8")],
      ["an ArrayBuffer", () => new TextEncoder().encode(bodyText).buffer],
      ["a Buffer that is a slice of a larger allocation", () => Buffer.concat([Buffer.from("xx"), Buffer.from(bodyText)]).subarray(2)]
    ])("verifies %s", async (_, rawBody) => {
      const secret = aSecret()
      const header = await sign(bodyText, secret, { timestamp: NOW })

      const event = await verify(rawBody(), header, secret, { now: NOW })

      expect(event).toEqual(JSON.parse(bodyText))
    })

    it.each([
      ["a parsed object", (body: string): unknown => JSON.parse(body)],
      ["undefined (no raw-body middleware)", (): unknown => undefined],
      ["a number", (): unknown => 42]
    ])("rejects %s with raw_body_required", async (_, parsed) => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expectRejection(verify(parsed(body) as string, header, secret, { now: NOW }), "raw_body_required")
    })
  })

  describe("the signature header", () => {
    it.each([
      ["undefined", undefined],
      ["null", null],
      ["empty", ""],
      ["blank", "  "],
      ["an empty list", []]
    ])("rejects a header that is %s with missing_header", async (_, header) => {
      const secret = aSecret()
      const { body } = await aDelivery({ secret })

      await expectRejection(verify(body, header, secret, { now: NOW }), "missing_header")
    })

    it.each([
      ["without t=", (v1: string) => `v1=${v1}`],
      ["with a non-numeric t", (v1: string) => `t=yesterday,v1=${v1}`],
      ["with a negative t", (v1: string) => `t=-${NOW},v1=${v1}`],
      ["with a fractional t", (v1: string) => `t=${NOW}.5,v1=${v1}`],
      ["with two t= entries", (v1: string) => `t=${NOW},t=${NOW},v1=${v1}`],
      ["with an entry that is not key=value", (v1: string) => `t=${NOW},v1=${v1},garbage`],
      ["with an empty entry", (v1: string) => `t=${NOW},,v1=${v1}`]
    ])("rejects a header %s with malformed_header", async (_, header) => {
      const secret = aSecret()
      const delivery = await aDelivery({ secret })

      await expectRejection(verify(delivery.body, header(v1Of(delivery.header)), secret, { now: NOW }), "malformed_header")
    })

    it("accepts entries separated by a comma and spaces", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      const event = await verify(body, header.replace(",", " , "), secret, { now: NOW })

      expect(event.id).toBe(aPostPublishedEvent().id)
    })

    it("accepts the header as the list Node gives for a repeated header", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })
      const [timestamp, v1] = header.split(",")

      const event = await verify(body, [timestamp!, v1!], secret, { now: NOW })

      expect(event.id).toBe(aPostPublishedEvent().id)
    })

    it("accepts a header with several v1 entries when any one matches", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })
      const good = v1Of(header)
      const bad = v1Of((await aDelivery({ secret: aSecret() })).header)

      await expect(verify(body, `t=${NOW},v1=${bad},v1=${good}`, secret, { now: NOW })).resolves.toBeTruthy()
      await expect(verify(body, `t=${NOW},v1=${good},v1=${bad}`, secret, { now: NOW })).resolves.toBeTruthy()
    })

    it("ignores entries of unknown schemes", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      const event = await verify(body, `t=${NOW},v0=legacy,v1=${v1Of(header)},v2=next=generation`, secret, { now: NOW })

      expect(event.id).toBe(aPostPublishedEvent().id)
    })

    it("rejects a header whose only signatures are of unknown schemes with no_matching_signature", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expectRejection(verify(body, `t=${NOW},v0=${v1Of(header)}`, secret, { now: NOW }), "no_matching_signature")
    })
  })

  describe("the signature", () => {
    it("rejects a delivery signed with another secret with no_matching_signature", async () => {
      const { body, header } = await aDelivery({ secret: aSecret() })

      await expectRejection(verify(body, header, aSecret(), { now: NOW }), "no_matching_signature")
    })

    it("rejects a body with one byte changed with no_matching_signature", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })
      const tampered = Buffer.from(body)
      const position = body.indexOf("C0ffee")
      tampered[position] = tampered[position]! ^ 0x01

      await expectRejection(verify(tampered, header, secret, { now: NOW }), "no_matching_signature")
    })

    it("rejects a signature moved to another timestamp with no_matching_signature", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expectRejection(verify(body, `t=${NOW + 1},v1=${v1Of(header)}`, secret, { now: NOW }), "no_matching_signature")
    })

    it("rejects a truncated signature with no_matching_signature", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expectRejection(verify(body, header.slice(0, -1), secret, { now: NOW }), "no_matching_signature")
    })

    it("reports a forged signature as no_matching_signature even when its timestamp is stale", async () => {
      const { body, header } = await aDelivery({ secret: aSecret(), timestamp: NOW - 3600 })

      await expectRejection(verify(body, header, aSecret(), { now: NOW }), "no_matching_signature")
    })
  })

  describe("secret rotation", () => {
    it("accepts a delivery signed with any of the secrets given", async () => {
      const previous = aSecret()
      const next = aSecret()
      const signedWithPrevious = await aDelivery({ secret: previous })
      const signedWithNext = await aDelivery({ secret: next })

      await expect(verify(signedWithPrevious.body, signedWithPrevious.header, [previous, next], { now: NOW })).resolves.toBeTruthy()
      await expect(verify(signedWithNext.body, signedWithNext.header, [previous, next], { now: NOW })).resolves.toBeTruthy()
    })

    it("rejects a delivery signed with none of the secrets given", async () => {
      const { body, header } = await aDelivery({ secret: aSecret() })

      await expectRejection(verify(body, header, [aSecret(), aSecret()], { now: NOW }), "no_matching_signature")
    })

    it("accepts a header signed with both secrets by a receiver that knows only one", async () => {
      const previous = aSecret()
      const next = aSecret()
      const { body, header } = await aDelivery({ secret: [previous, next] })

      await expect(verify(body, header, next, { now: NOW })).resolves.toBeTruthy()
      await expect(verify(body, header, previous, { now: NOW })).resolves.toBeTruthy()
    })

    it.each([
      ["an empty string", ""],
      ["an empty list", []],
      ["a list with an empty string", ["whsec_a", ""]],
      ["undefined (an unset environment variable)", undefined]
    ])("throws a TypeError when the secret is %s", async (_, secret) => {
      const { body, header } = await aDelivery({ secret: aSecret() })

      await expect(verify(body, header, secret as string, { now: NOW })).rejects.toBeInstanceOf(TypeError)
    })
  })

  describe("replay tolerance", () => {
    it("defaults to 300 seconds", () => {
      expect(DEFAULT_TOLERANCE_SECONDS).toBe(300)
    })

    it("accepts a timestamp exactly the tolerance in the past and rejects one second more with timestamp_too_old", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expect(verify(body, header, secret, { now: NOW + 300 })).resolves.toBeTruthy()
      await expectRejection(verify(body, header, secret, { now: NOW + 301 }), "timestamp_too_old")
    })

    it("accepts a timestamp exactly the tolerance in the future and rejects one second more with timestamp_in_future", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expect(verify(body, header, secret, { now: NOW - 300 })).resolves.toBeTruthy()
      await expectRejection(verify(body, header, secret, { now: NOW - 301 }), "timestamp_in_future")
    })

    it("uses the tolerance given", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expect(verify(body, header, secret, { now: NOW + 10, toleranceSeconds: 10 })).resolves.toBeTruthy()
      await expectRejection(verify(body, header, secret, { now: NOW + 11, toleranceSeconds: 10 }), "timestamp_too_old")
      await expectRejection(verify(body, header, secret, { now: NOW - 11, toleranceSeconds: 10 }), "timestamp_in_future")
    })

    it("turns the check off with an infinite tolerance", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret, timestamp: 1_600_000_000 })

      await expect(verify(body, header, secret, { now: NOW, toleranceSeconds: Number.POSITIVE_INFINITY })).resolves.toBeTruthy()
    })

    it.each([
      ["a Date", (seconds: number) => new Date(seconds * 1000)],
      ["unix seconds", (seconds: number) => seconds],
      ["a function returning a Date", (seconds: number) => () => new Date(seconds * 1000)],
      ["a function returning unix seconds", (seconds: number) => () => seconds]
    ])("takes now as %s", async (_, now) => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expect(verify(body, header, secret, { now: now(NOW + 300) })).resolves.toBeTruthy()
      await expectRejection(verify(body, header, secret, { now: now(NOW + 301) }), "timestamp_too_old")
    })

    it("truncates a fractional now to whole seconds", async () => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expect(verify(body, header, secret, { now: new Date((NOW + 300) * 1000 + 999) })).resolves.toBeTruthy()
    })

    it.each([
      ["a negative tolerance", { toleranceSeconds: -1 }],
      ["a NaN tolerance", { toleranceSeconds: Number.NaN }],
      ["an invalid Date", { now: new Date("not a date") }]
    ])("throws a RangeError for %s", async (_, options) => {
      const secret = aSecret()
      const { body, header } = await aDelivery({ secret })

      await expect(verify(body, header, secret, options)).rejects.toBeInstanceOf(RangeError)
    })
  })

  describe("the body", () => {
    it.each([
      ["not JSON", "event=post.published"],
      ["a JSON array", "[]"],
      ["JSON without an id", JSON.stringify({ ...aPostPublishedEvent(), id: undefined })],
      ["JSON without a type", JSON.stringify({ ...aPostPublishedEvent(), type: 7 })],
      ["JSON without a boolean livemode", JSON.stringify({ ...aPostPublishedEvent(), livemode: "false" })],
      ["JSON without an object data", JSON.stringify({ ...aPostPublishedEvent(), data: null })]
    ])("rejects a correctly signed body that is %s with invalid_body", async (_, body) => {
      const secret = aSecret()
      const delivery = await aDelivery({ secret, body })

      await expectRejection(verify(delivery.body, delivery.header, secret, { now: NOW }), "invalid_body")
    })

    it("rejects correctly signed bytes that are not UTF-8 with invalid_body", async () => {
      const secret = aSecret()
      const body = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])
      const header = await sign(body, secret, { timestamp: NOW })

      await expectRejection(verify(body, header, secret, { now: NOW }), "invalid_body")
    })
  })

  it("throws errors that are Errors with a name and a message", async () => {
    const { body, header } = await aDelivery({ secret: aSecret() })

    const error = await verify(body, header, aSecret(), { now: NOW }).catch((caught: unknown) => caught)

    expect(error).toBeInstanceOf(Error)
    expect(error).toBeInstanceOf(WebhookVerificationError)
    expect(error).toMatchObject({ name: "WebhookVerificationError", reason: "no_matching_signature" })
    expect((error as Error).message).not.toBe("")
  })
})
