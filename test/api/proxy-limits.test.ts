/**
 * Limits that hold behind a reverse proxy (issue #37, F6 and F7), over real HTTP: the client
 * address comes from `X-Forwarded-For` / `Forwarded` only when the peer is a trusted proxy
 * (`POSTWIRE_TRUSTED_PROXIES`), the public pages have a budget per kind of page and per token,
 * and wrong admin tokens are counted per client address until the address is answered 429.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, errorOf, inOneRateLimitWindow } from "../support/Http.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { backends, startServer, type TestServer } from "../support/TestServer.ts"

let guesses = 0

/** A decision on a guessed approval link (a new guess each time), with the headers a proxy would add. */
const guessDecision = (server: TestServer, headers: Record<string, string> = {}) =>
  call(server.baseUrl, "POST", `/v1/approvals/apr_guessed_${++guesses}/decision`, { body: { decision: "approve" }, headers })

describe.each(backends())("public pages behind a trusted proxy on %s", (backend) => {
  let server: TestServer
  const time = aMovableClock()

  beforeAll(async () => {
    // The test's requests come from 127.0.0.1: the server sees them as coming through a proxy there.
    server = await startServer(
      backend,
      { POSTWIRE_RATE_LIMIT_PUBLIC: "3", POSTWIRE_TRUSTED_PROXIES: "127.0.0.1, ::1, 10.0.0.0/8" },
      { clock: time.clock }
    )
  })
  afterAll(() => server?.stop())

  it("give each forwarded client its own budget, and believe only the hops after the last untrusted one", async () => {
    inOneRateLimitWindow(time)
    const alice = { "x-forwarded-for": "203.0.113.10" }
    for (let i = 0; i < 3; i++) expect((await guessDecision(server, alice)).status).toBe(404)
    const limited = await guessDecision(server, alice)
    expect(limited.status).toBe(429)
    expect(errorOf(limited).code).toBe("rate_limited")
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

    // Alice cannot escape by writing another address in front: the right-most untrusted hop is hers.
    expect((await guessDecision(server, { "x-forwarded-for": "198.51.100.99, 203.0.113.10" })).status).toBe(429)
    // Nor by adding a hop of the trusted network behind her own.
    expect((await guessDecision(server, { "x-forwarded-for": "203.0.113.10, 10.1.2.3" })).status).toBe(429)

    // Bob, behind the same proxy, is not locked out; nor is a client named by `Forwarded` (IPv6).
    const bob = await guessDecision(server, { "x-forwarded-for": "203.0.113.20" })
    expect(bob.status).toBe(404)
    expect(bob.headers.get("x-ratelimit-remaining")).toBe("2")
    expect((await guessDecision(server, { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https' })).status).toBe(404)
  })

  it("keep one budget per kind of page: guessing approval links locks out neither the connect pages nor their callbacks", async () => {
    inOneRateLimitWindow(time)
    const carol = { "x-forwarded-for": "203.0.113.30" }
    for (let i = 0; i < 4; i++) await guessDecision(server, carol)
    expect((await guessDecision(server, carol)).status).toBe(429)
    const page = await fetch(`${server.baseUrl}/approve/another-guess`, { headers: carol })
    expect(page.status).toBe(429)

    const connect = await fetch(`${server.baseUrl}/connect/cnt_unknown`, { headers: carol })
    expect(connect.status).not.toBe(429)
    expect(connect.headers.get("x-ratelimit-remaining")).toBe("2")
    const callback = await fetch(`${server.baseUrl}/connect/callback/x?state=guessed&code=c`, { headers: carol })
    expect(callback.status).not.toBe(429)
    expect(callback.headers.get("x-ratelimit-remaining")).toBe("2")
  })

  it("limit one link however many addresses ask for it", async () => {
    inOneRateLimitWindow(time)
    const token = "apr_one_link_many_addresses"
    const replies = []
    for (let i = 0; i < 4; i++) {
      replies.push(await fetch(`${server.baseUrl}/approve/${token}`, { headers: { "x-forwarded-for": `198.51.100.${i + 1}` } }))
    }
    expect(replies.slice(0, 3).map((r) => r.status)).not.toContain(429)
    expect(replies[3]!.status).toBe(429)
  })
})

describe.each(backends())("forwarding headers from an untrusted peer on %s", (backend) => {
  let server: TestServer
  const time = aMovableClock()

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_RATE_LIMIT_PUBLIC: "3" }, { clock: time.clock })
  })
  afterAll(() => server?.stop())

  it("are ignored: a client cannot get a fresh budget by naming another address", async () => {
    inOneRateLimitWindow(time)
    const statuses = []
    for (let i = 0; i < 4; i++) {
      statuses.push((await guessDecision(server, { "x-forwarded-for": `198.51.100.${i + 1}`, forwarded: `for=192.0.2.${i + 1}` })).status)
    }
    expect(statuses).toEqual([404, 404, 404, 429])
  })
})

describe.each(backends())("the admin API on %s", (backend) => {
  let server: TestServer
  const time = aMovableClock()

  beforeAll(async () => {
    server = await startServer(backend, { POSTWIRE_TRUSTED_PROXIES: "127.0.0.1, ::1" }, { clock: time.clock })
  })
  afterAll(() => server?.stop())

  const listWorkspaces = (key: string, address: string) =>
    call(server.baseUrl, "GET", "/admin/v1/workspaces", { key, headers: { "x-forwarded-for": address } })

  it("answers 429 with Retry-After after ten wrong tokens from one address, even to the right token, and to that address only", async () => {
    inOneRateLimitWindow(time)
    const guesser = "203.0.113.66"
    for (let i = 0; i < 10; i++) {
      const reply = await listWorkspaces(`pwadm_guess_${i}_${"0".repeat(32)}`, guesser)
      expect(reply.status).toBe(401)
      expect(errorOf(reply).code).toBe("unauthorized")
    }
    const limited = await listWorkspaces("pwadm_guess_eleventh_0000000000000000000000", guesser)
    expect(limited.status).toBe(429)
    expect(errorOf(limited)).toMatchObject({ code: "rate_limited", retryable: true })
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)

    // A right guess now would tell the guesser nothing: the address is refused before its token is looked at.
    expect((await listWorkspaces(server.adminToken, guesser)).status).toBe(429)
    // The operator, elsewhere, is not locked out.
    expect((await listWorkspaces(server.adminToken, "203.0.113.1")).status).toBe(200)

    // The next window starts afresh.
    time.advance(60_000)
    expect((await listWorkspaces(server.adminToken, guesser)).status).toBe(200)
  })

  it("does not count right tokens", async () => {
    inOneRateLimitWindow(time)
    for (let i = 0; i < 15; i++) expect((await listWorkspaces(server.adminToken, "203.0.113.77")).status).toBe(200)
  })
})
