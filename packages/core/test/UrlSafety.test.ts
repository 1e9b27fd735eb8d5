import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import {
  type AddressClass,
  checkDeliveryAddress,
  checkWebhookUrl,
  classifyAddress,
  isPublicAddress,
  Resolver,
  type UnsafeUrlReason
} from "../src/urls/UrlSafety.ts"

const dns = Resolver.layerStatic({
  "example.com": ["93.184.216.34"],
  "example.com.": ["93.184.216.34"],
  "dual.example.com": ["2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"],
  "internal.example.com": ["10.0.0.5"],
  "mixed.example.com": ["93.184.216.34", "192.168.1.10"],
  "metadata.example.com": ["169.254.169.254"],
  "carrier.example.com": ["100.64.0.1"],
  "ula.example.com": ["fd12:3456:789a::1"],
  "mapped.example.com": ["::ffff:10.0.0.1"],
  "nat64.example.com": ["64:ff9b::c0a8:101"],
  "127.0.0.1.nip.io": ["127.0.0.1"],
  "dev.example.com": ["127.0.0.1"],
  "broken.example.com": ["not-an-address"],
  "empty.example.com": []
})

type Expected = "ok" | UnsafeUrlReason

interface Row {
  readonly url: string
  readonly expected: Expected
  readonly allowLoopback?: boolean
  readonly why: string
}

const rows: ReadonlyArray<Row> = [
  // Public targets pass.
  { url: "https://example.com/hooks/postwire", expected: "ok", why: "a public name" },
  { url: "https://example.com./hook", expected: "ok", why: "a fully qualified public name" },
  { url: "https://dual.example.com/hook", expected: "ok", why: "a name with public IPv4 and IPv6 answers" },
  { url: "https://[2606:4700::1111]/hook", expected: "ok", why: "a public IPv6 literal" },
  { url: "https://93.184.216.34:8443/hook?x=1", expected: "ok", why: "a public IPv4 literal with a port" },
  { url: "https://[::ffff:93.184.216.34]/hook", expected: "ok", why: "IPv4-mapped public IPv4" },
  { url: "https://[64:ff9b::5db8:d822]/hook", expected: "ok", why: "NAT64 of a public IPv4" },
  // Not a URL, not https, credentials.
  { url: "not a url", expected: "not_a_url", why: "no scheme" },
  { url: "https://", expected: "not_a_url", why: "no host" },
  { url: "https://[::1/hook", expected: "not_a_url", why: "an unclosed IPv6 literal" },
  { url: "https://4294967296/", expected: "not_a_url", why: "a decimal IPv4 past 32 bits" },
  { url: "http://example.com/hook", expected: "not_https", why: "plain http" },
  { url: "ftp://example.com/hook", expected: "not_https", why: "another scheme" },
  { url: "javascript:alert(1)", expected: "not_https", why: "a script URL" },
  { url: "https://user:secret@example.com/hook", expected: "credentials", why: "user and password" },
  { url: "https://token@example.com/hook", expected: "credentials", why: "a user name only" },
  // Loopback in every spelling that reaches the check.
  { url: "https://127.0.0.1/hook", expected: "loopback", why: "127.0.0.1" },
  { url: "https://127.255.255.254/hook", expected: "loopback", why: "the top of 127/8" },
  { url: "https://2130706433/hook", expected: "loopback", why: "decimal 127.0.0.1" },
  { url: "https://0177.0.0.1/hook", expected: "loopback", why: "octal 127.0.0.1" },
  { url: "https://0x7f.1/hook", expected: "loopback", why: "hex short form of 127.0.0.1" },
  { url: "https://127.1/hook", expected: "loopback", why: "short form 127.1" },
  { url: "https://%31%32%37.0.0.1/hook", expected: "loopback", why: "percent-encoded 127.0.0.1" },
  { url: "https://localhost/hook", expected: "loopback", why: "localhost" },
  { url: "https://LOCALHOST./hook", expected: "loopback", why: "localhost, upper case, with the root dot" },
  { url: "https://api.localhost/hook", expected: "loopback", why: "a *.localhost name" },
  { url: "https://[::1]/hook", expected: "loopback", why: "IPv6 loopback" },
  { url: "https://[0:0:0:0:0:0:0:1]/hook", expected: "loopback", why: "IPv6 loopback written out" },
  { url: "https://[::ffff:127.0.0.1]/hook", expected: "loopback", why: "IPv4-mapped loopback, dotted" },
  { url: "https://[::ffff:7f00:1]/hook", expected: "loopback", why: "IPv4-mapped loopback, hex" },
  { url: "https://[::127.0.0.1]/hook", expected: "loopback", why: "IPv4-compatible loopback" },
  { url: "https://127.0.0.1.nip.io/hook", expected: "loopback", why: "a name that resolves to loopback" },
  // Private and other special ranges, literal and resolved.
  { url: "https://10.1.2.3/hook", expected: "private_address", why: "10/8" },
  { url: "https://172.16.0.1/hook", expected: "private_address", why: "bottom of 172.16/12" },
  { url: "https://172.31.255.255/hook", expected: "private_address", why: "top of 172.16/12" },
  { url: "https://192.168.0.1/hook", expected: "private_address", why: "192.168/16" },
  { url: "https://0xc0a80001/hook", expected: "private_address", why: "hex 192.168.0.1" },
  { url: "https://internal.example.com/hook", expected: "private_address", why: "a name that resolves to 10/8" },
  { url: "https://mixed.example.com/hook", expected: "private_address", why: "one private answer among public ones" },
  { url: "https://mapped.example.com/hook", expected: "private_address", why: "a name that answers IPv4-mapped 10/8" },
  { url: "https://[::ffff:10.0.0.1]/hook", expected: "private_address", why: "IPv4-mapped 10/8" },
  { url: "https://[64:ff9b::10.0.0.1]/hook", expected: "private_address", why: "NAT64 of 10/8" },
  { url: "https://nat64.example.com/hook", expected: "private_address", why: "a name that answers NAT64 of 192.168.1.1" },
  { url: "https://[2002:c0a8:101::1]/hook", expected: "private_address", why: "6to4 of 192.168.1.1" },
  { url: "https://169.254.169.254/latest/meta-data", expected: "link_local", why: "the cloud metadata address" },
  { url: "https://metadata.example.com/", expected: "link_local", why: "a name that resolves to the metadata address" },
  { url: "https://[fe80::1]/hook", expected: "link_local", why: "IPv6 link-local" },
  { url: "https://100.64.0.1/hook", expected: "cgnat", why: "bottom of 100.64/10" },
  { url: "https://100.127.255.255/hook", expected: "cgnat", why: "top of 100.64/10" },
  { url: "https://carrier.example.com/hook", expected: "cgnat", why: "a name that resolves to 100.64/10" },
  { url: "https://[fc00::1]/hook", expected: "unique_local", why: "fc00::/7" },
  { url: "https://ula.example.com/hook", expected: "unique_local", why: "a name that resolves to fd00::/8" },
  { url: "https://0.0.0.0/hook", expected: "unspecified", why: "0.0.0.0 (reaches this host on Linux)" },
  { url: "https://0/hook", expected: "unspecified", why: "0 as a one-part IPv4" },
  { url: "https://[::]/hook", expected: "unspecified", why: "IPv6 unspecified" },
  { url: "https://224.0.0.1/hook", expected: "multicast", why: "224/4" },
  { url: "https://[ff02::1]/hook", expected: "multicast", why: "ff00::/8" },
  { url: "https://240.0.0.1/hook", expected: "reserved", why: "240/4" },
  { url: "https://255.255.255.255/hook", expected: "reserved", why: "broadcast" },
  { url: "https://192.0.2.10/hook", expected: "reserved", why: "documentation range" },
  { url: "https://[2001:db8::1]/hook", expected: "reserved", why: "IPv6 documentation range" },
  // Names without a usable answer.
  { url: "https://nowhere.example.com/hook", expected: "unresolvable", why: "a name with no answer" },
  { url: "https://empty.example.com/hook", expected: "unresolvable", why: "an empty answer" },
  { url: "https://broken.example.com/hook", expected: "unresolvable", why: "an answer that is no address" },
  // POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS lets loopback through, over http or https, and nothing else.
  { url: "http://127.0.0.1:4000/hook", allowLoopback: true, expected: "ok", why: "http to 127.0.0.1" },
  { url: "https://127.0.0.1:4000/hook", allowLoopback: true, expected: "ok", why: "https to 127.0.0.1" },
  { url: "http://127.9.9.9/hook", allowLoopback: true, expected: "ok", why: "http to elsewhere in 127/8" },
  { url: "http://localhost:4000/hook", allowLoopback: true, expected: "ok", why: "http to localhost" },
  { url: "http://[::1]:4000/hook", allowLoopback: true, expected: "ok", why: "http to [::1]" },
  { url: "http://dev.example.com/hook", allowLoopback: true, expected: "ok", why: "http to a name that answers loopback" },
  { url: "https://example.com/hook", allowLoopback: true, expected: "ok", why: "https to a public name" },
  { url: "http://example.com/hook", allowLoopback: true, expected: "not_https", why: "http to a public name" },
  { url: "http://93.184.216.34/hook", allowLoopback: true, expected: "not_https", why: "http to a public literal" },
  { url: "http://10.0.0.1/hook", allowLoopback: true, expected: "private_address", why: "private stays refused" },
  { url: "https://192.168.1.1/hook", allowLoopback: true, expected: "private_address", why: "private over https too" },
  { url: "http://[fe80::1]/hook", allowLoopback: true, expected: "link_local", why: "link-local stays refused" },
  { url: "http://0.0.0.0/hook", allowLoopback: true, expected: "unspecified", why: "0.0.0.0 is not loopback" },
  { url: "http://user:pw@localhost/hook", allowLoopback: true, expected: "credentials", why: "credentials stay refused" },
  { url: "ftp://localhost/hook", allowLoopback: true, expected: "not_https", why: "other schemes stay refused" }
]

describe("checkWebhookUrl", () => {
  for (const row of rows) {
    const mode = row.allowLoopback === true ? " (loopback allowed)" : ""
    it.effect(`${row.expected === "ok" ? "accepts" : `refuses (${row.expected})`} ${row.url}: ${row.why}${mode}`, () =>
      Effect.gen(function* () {
        const outcome = yield* checkWebhookUrl(row.url, { allowLoopback: row.allowLoopback === true }).pipe(
          Effect.map((url) => url.href),
          Effect.catchTag("UnsafeUrl", (error) => Effect.succeed(error.reason))
        )
        assert.strictEqual(outcome, row.expected === "ok" ? new URL(row.url).href : row.expected)
      }).pipe(Effect.provide(dns))
    )
  }

  it.effect("names the host and the refused address", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(checkWebhookUrl("https://mixed.example.com/hook", { allowLoopback: false }))
      assert.deepStrictEqual([error.reason, error.host, error.address], [
        "private_address",
        "mixed.example.com",
        "192.168.1.10"
      ])
    }).pipe(Effect.provide(dns))
  )

  it.effect("never asks DNS about literals or localhost names", () =>
    Effect.gen(function* () {
      const asked = yield* Ref.make<ReadonlyArray<string>>([])
      const resolver = Resolver.of({
        resolve: (host) => Ref.update(asked, (hosts) => [...hosts, host]).pipe(Effect.as(["93.184.216.34"]))
      })
      for (const url of ["https://93.184.216.34/", "https://[2606:4700::1111]/", "https://localhost/", "https://a.localhost/"]) {
        yield* Effect.exit(checkWebhookUrl(url, { allowLoopback: false }).pipe(Effect.provideService(Resolver, resolver)))
      }
      yield* checkWebhookUrl("https://example.com/", { allowLoopback: false }).pipe(Effect.provideService(Resolver, resolver))
      assert.deepStrictEqual(yield* Ref.get(asked), ["example.com"])
    })
  )
})

describe("checkDeliveryAddress", () => {
  it.effect("returns the checked addresses a delivery may connect to", () =>
    Effect.gen(function* () {
      const target = yield* checkDeliveryAddress("https://dual.example.com/hook", { allowLoopback: false })
      assert.deepStrictEqual([target.url.host, target.addresses], [
        "dual.example.com",
        ["2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"]
      ])
      const literal = yield* checkDeliveryAddress("https://[2606:4700::1111]:8443/", { allowLoopback: false })
      assert.deepStrictEqual(literal.addresses, ["2606:4700::1111"])
      const local = yield* checkDeliveryAddress("http://localhost:3000/", { allowLoopback: true })
      assert.deepStrictEqual(local.addresses, ["127.0.0.1", "::1"])
    }).pipe(Effect.provide(dns))
  )

  it.effect("refuses at delivery a name that answered public at registration and private now (DNS rebinding)", () =>
    Effect.gen(function* () {
      const answers = yield* Ref.make<ReadonlyArray<string>>(["93.184.216.34"])
      const rebinding = Resolver.of({ resolve: () => Ref.get(answers) })
      const check = checkDeliveryAddress("https://rebind.example.com/hook", { allowLoopback: false }).pipe(
        Effect.provideService(Resolver, rebinding)
      )
      const atRegistration = yield* check
      assert.deepStrictEqual(atRegistration.addresses, ["93.184.216.34"])
      yield* Ref.set(answers, ["169.254.169.254"])
      const atDelivery = yield* Effect.flip(check)
      assert.deepStrictEqual([atDelivery.reason, atDelivery.address], ["link_local", "169.254.169.254"])
    })
  )

  it.effect("with loopback allowed, accepts http only while every answer is loopback", () =>
    Effect.gen(function* () {
      const answers = yield* Ref.make<ReadonlyArray<string>>(["127.0.0.1"])
      const rebinding = Resolver.of({ resolve: () => Ref.get(answers) })
      const check = checkWebhookUrl("http://dev.example.com/hook", { allowLoopback: true }).pipe(
        Effect.provideService(Resolver, rebinding)
      )
      yield* check
      yield* Ref.set(answers, ["93.184.216.34"])
      assert.strictEqual((yield* Effect.flip(check)).reason, "not_https")
      yield* Ref.set(answers, ["127.0.0.1", "93.184.216.34"])
      assert.strictEqual((yield* Effect.flip(check)).reason, "not_https")
    })
  )
})

describe("classifyAddress", () => {
  const addresses: ReadonlyArray<readonly [string, AddressClass]> = [
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["100.63.255.255", "public"],
    ["100.128.0.0", "public"],
    ["172.15.255.255", "public"],
    ["172.32.0.0", "public"],
    ["192.167.255.255", "public"],
    ["223.255.255.255", "public"],
    ["2606:4700::1111", "public"],
    ["[2606:4700::1111]", "public"],
    ["2a00:1450:4001:80b::200e", "public"],
    ["::ffff:8.8.8.8", "public"],
    ["2002:808:808::1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.1", "loopback"],
    ["2130706433", "loopback"],
    ["0x7f000001", "loopback"],
    ["0177.0.0.01", "loopback"],
    ["127.0.0.1.", "loopback"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["10.0.0.0", "private_address"],
    ["10.255.255.255", "private_address"],
    ["fec0::1", "private_address"],
    ["169.254.0.1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["febf:ffff::1", "link_local"],
    ["100.100.100.100", "cgnat"],
    ["fdff:ffff::1", "unique_local"],
    ["FC00::", "unique_local"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["::0.0.0.0", "unspecified"],
    ["239.255.255.255", "multicast"],
    ["ff0e::1", "multicast"],
    ["::ffff:224.0.0.1", "multicast"],
    ["198.18.0.1", "reserved"],
    ["198.51.100.1", "reserved"],
    ["203.0.113.9", "reserved"],
    ["192.0.0.8", "reserved"],
    ["192.88.99.1", "reserved"],
    ["::8.8.8.8", "reserved"],
    ["2001::1", "reserved"],
    ["2001:1ff::1", "reserved"],
    ["3fff::1", "reserved"],
    ["100::1", "reserved"],
    ["64:ff9b:1::1", "reserved"],
    ["4000::1", "reserved"],
    ["", "not_an_address"],
    ["example.com", "not_an_address"],
    ["256.0.0.1", "not_an_address"],
    ["1.2.3.4.5", "not_an_address"],
    ["09.1.1.1", "not_an_address"],
    ["1::2::3", "not_an_address"],
    ["1:2:3:4:5:6:7:8:9", "not_an_address"],
    ["1:2:3:4:5:6:7", "not_an_address"],
    ["1:2:3:4:5:6:7::8", "not_an_address"],
    ["12345::", "not_an_address"],
    ["::ffff:1.2.3", "not_an_address"],
    ["::ffff:01.2.3.4", "not_an_address"],
    ["1.2.3.4::", "not_an_address"],
    ["g::1", "not_an_address"]
  ]
  for (const [address, expected] of addresses) {
    it(`classifies ${JSON.stringify(address)} as ${expected}`, () => {
      assert.strictEqual(classifyAddress(address), expected)
      assert.strictEqual(isPublicAddress(address), expected === "public")
    })
  }

  it("accepts `::` standing for a single group", () => {
    assert.strictEqual(classifyAddress("2606:4700:1:2:3:4::5"), "public")
  })
})

describe("Resolver", () => {
  it.effect("layerStatic fails for a host it does not know", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Resolver.use((resolver) => resolver.resolve("constructor")))
      assert.deepStrictEqual([error._tag, error.host], ["ResolveError", "constructor"])
    }).pipe(Effect.provide(Resolver.layerStatic({})))
  )
})
