/**
 * SSRF protection for webhook endpoint URLs: the `invalid_url` rule.
 *
 * A webhook `url` must be https, carry no credentials, and its host must be (or resolve only
 * to) public addresses. The same check runs when an endpoint is registered and again before
 * every delivery, so a name that answers public at registration and private later (DNS
 * rebinding) is refused at delivery time.
 *
 * @since 0.1.0
 */
import type { LookupAddress } from "node:dns"
import { isIPv6, type LookupFunction } from "node:net"
import { Context, Data, Effect, Layer } from "effect"

/**
 * A special-purpose address range that a webhook must never reach.
 *
 * `reserved` covers everything else that is not globally reachable: 240.0.0.0/4 (with the
 * broadcast address), documentation and benchmarking ranges, IETF protocol assignments,
 * deprecated IPv4-compatible IPv6, and IPv6 outside 2000::/3.
 *
 * @since 0.1.0
 */
export type AddressRange =
  | "loopback"
  | "private_address"
  | "link_local"
  | "cgnat"
  | "unique_local"
  | "multicast"
  | "unspecified"
  | "reserved"

/**
 * What {@link classifyAddress} says about a string: `public`, a blocked {@link AddressRange},
 * or `not_an_address` when the string is no IPv4 or IPv6 literal.
 *
 * @since 0.1.0
 */
export type AddressClass = "public" | AddressRange | "not_an_address"

/**
 * Why a webhook URL was refused: a blocked {@link AddressRange}, or one of `not_a_url`,
 * `not_https` (also http to a non-loopback host when loopback is allowed), `credentials`
 * (user or password in the URL), `unresolvable` (no DNS answer).
 *
 * @since 0.1.0
 */
export type UnsafeUrlReason = "not_a_url" | "not_https" | "credentials" | "unresolvable" | AddressRange

/**
 * A webhook URL that the service must not call. `host` is the URL's host as parsed (absent
 * when the input is no URL); `address` is the resolved address that was refused, when the
 * refusal came from one.
 *
 * @since 0.1.0
 */
export class UnsafeUrl extends Data.TaggedError("UnsafeUrl")<{
  readonly reason: UnsafeUrlReason
  readonly host?: string
  readonly address?: string
}> {}

/**
 * A host name that could not be resolved.
 *
 * @since 0.1.0
 */
export class ResolveError extends Data.TaggedError("ResolveError")<{
  readonly host: string
  readonly cause?: unknown
}> {}

/**
 * Resolves a host name to every address it answers with (IPv4 and IPv6). The operating
 * system's resolver (`dns.lookup`) is `NodeResolver` in `@postwire/server`; core keeps the
 * service and a static table for tests.
 *
 * @since 0.1.0
 */
export class Resolver extends Context.Service<
  Resolver,
  { readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>, ResolveError> }
>()("postwire/Resolver") {
  /**
   * A fixed table of answers for tests; a host missing from the table fails with
   * {@link ResolveError}.
   *
   * @example
   * ```ts
   * Resolver.layerStatic({ "example.com": ["93.184.216.34"] })
   * ```
   *
   * @since 0.1.0
   */
  static layerStatic(answers: Record<string, ReadonlyArray<string>>): Layer.Layer<Resolver> {
    return Layer.succeed(Resolver)({
      resolve: (host) =>
        Object.hasOwn(answers, host) ? Effect.succeed(answers[host]!) : Effect.fail(new ResolveError({ host }))
    })
  }
}

/**
 * Options of {@link checkWebhookUrl}. `allowLoopback` is the server setting
 * `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS`: it lets loopback targets through, over http or
 * https, and nothing else.
 *
 * @since 0.1.0
 */
export interface CheckWebhookUrlOptions {
  readonly allowLoopback: boolean
}

/**
 * A webhook URL that passed the check, with the addresses it was checked against. A delivery
 * should connect only to these (for example through an HTTP agent's `lookup`), so nothing
 * can resolve the name differently between the check and the connection.
 *
 * @since 0.1.0
 */
export interface DeliveryTarget {
  readonly url: URL
  readonly addresses: ReadonlyArray<string>
}

/**
 * A socket `lookup` that answers with the checked addresses of a {@link DeliveryTarget} (of the
 * family asked for) and never resolves the name again: a connection made with it goes to an
 * address that was checked.
 *
 * @example
 * ```ts
 * request(target.url, { lookup: lookupAmong(target.addresses), agent: false })
 * ```
 *
 * @since 0.8.0
 */
export const lookupAmong = (addresses: ReadonlyArray<string>): LookupFunction => {
  const entries: Array<LookupAddress> = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
  return (_hostname, options, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family
    const allowed = entries.filter((entry) => !family || entry.family === family)
    if (allowed.length === 0) {
      const error: NodeJS.ErrnoException = new Error("no checked address of the requested family")
      error.code = "ENOTFOUND"
      return callback(error, "", 4)
    }
    if (options.all === true) return (callback as (error: null, all: Array<LookupAddress>) => void)(null, allowed)
    return callback(null, allowed[0]!.address, allowed[0]!.family)
  }
}

// ---------------------------------------------------------------------------------------------
// Address parsing
// ---------------------------------------------------------------------------------------------

// One part of an IPv4 address as the WHATWG URL parser and inet_aton read it: 0x.. is hex,
// a leading 0 is octal.
const parseIPv4Part = (part: string): number | undefined => {
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16)
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8)
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number.parseInt(part, 10)
  return undefined
}

// IPv4 in any spelling a URL or a C resolver accepts: 127.0.0.1, 127.1, 2130706433,
// 0x7f.1, 0177.0.0.1. Returns the address as an unsigned 32-bit number.
const parseIPv4 = (input: string): number | undefined => {
  const parts = input.split(".")
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop()
  if (parts.length === 0 || parts.length > 4) return undefined
  const numbers: Array<number> = []
  for (const part of parts) {
    const value = parseIPv4Part(part)
    if (value === undefined) return undefined
    numbers.push(value)
  }
  const last = numbers.pop()!
  if (numbers.some((value) => value > 255) || last >= 256 ** (4 - numbers.length)) return undefined
  return numbers.reduce((sum, value, index) => sum + value * 256 ** (3 - index), last)
}

// The dotted quad embedded at the end of an IPv6 literal: strict decimal, no leading zeros.
const parseDottedQuad = (input: string): number | undefined => {
  if (!/^(0|[1-9][0-9]{0,2})(\.(0|[1-9][0-9]{0,2})){3}$/.test(input)) return undefined
  const octets = input.split(".").map(Number)
  if (octets.some((octet) => octet > 255)) return undefined
  return octets.reduce((sum, octet) => sum * 256 + octet, 0)
}

const parseIPv6Groups = (input: string, allowDottedTail: boolean): Array<number> | undefined => {
  if (input === "") return []
  const pieces = input.split(":")
  const groups: Array<number> = []
  for (const [index, piece] of pieces.entries()) {
    if (allowDottedTail && index === pieces.length - 1 && piece.includes(".")) {
      const v4 = parseDottedQuad(piece)
      if (v4 === undefined) return undefined
      groups.push(Math.floor(v4 / 0x10000), v4 % 0x10000)
    } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
      groups.push(Number.parseInt(piece, 16))
    } else {
      return undefined
    }
  }
  return groups
}

// IPv6 as eight 16-bit groups: `::` compression, an embedded dotted quad at the end, and a
// zone id (`fe80::1%eth0`, ignored) are accepted.
const parseIPv6 = (input: string): ReadonlyArray<number> | undefined => {
  const zone = input.indexOf("%")
  const address = zone === -1 ? input : input.slice(0, zone)
  const gap = address.indexOf("::")
  if (gap === -1) {
    const groups = parseIPv6Groups(address, true)
    return groups?.length === 8 ? groups : undefined
  }
  if (address.includes("::", gap + 1)) return undefined
  const head = parseIPv6Groups(address.slice(0, gap), false)
  const tail = parseIPv6Groups(address.slice(gap + 2), true)
  if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

interface V4Range {
  readonly base: number
  readonly bits: number
  readonly range: AddressRange
}

const v4 = (cidr: string, range: AddressRange): V4Range => {
  const [base, bits] = cidr.split("/")
  return { base: parseIPv4(base!)!, bits: Number(bits), range }
}

// The IANA IPv4 special-purpose registry, entries that are not globally reachable.
const v4Ranges: ReadonlyArray<V4Range> = [
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private_address"),
  v4("100.64.0.0/10", "cgnat"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link_local"),
  v4("172.16.0.0/12", "private_address"),
  v4("192.0.0.0/24", "reserved"),
  v4("192.0.2.0/24", "reserved"),
  v4("192.88.99.0/24", "reserved"),
  v4("192.168.0.0/16", "private_address"),
  v4("198.18.0.0/15", "reserved"),
  v4("198.51.100.0/24", "reserved"),
  v4("203.0.113.0/24", "reserved"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved")
]

const classifyIPv4 = (address: number): "public" | AddressRange => {
  for (const { base, bits, range } of v4Ranges) {
    const size = 2 ** (32 - bits)
    if (Math.floor(address / size) === Math.floor(base / size)) return range
  }
  return "public"
}

interface V6Range {
  readonly prefix: ReadonlyArray<number>
  readonly bits: number
  readonly range: AddressRange
}

const v6 = (cidr: string, range: AddressRange): V6Range => {
  const [prefix, bits] = cidr.split("/")
  return { prefix: parseIPv6(prefix!)!, bits: Number(bits), range }
}

const inV6Prefix = (groups: ReadonlyArray<number>, prefix: ReadonlyArray<number>, bits: number): boolean => {
  for (let index = 0; index < 8 && bits > index * 16; index++) {
    const take = Math.min(16, bits - index * 16)
    const shift = 16 - take
    if (groups[index]! >> shift !== prefix[index]! >> shift) return false
  }
  return true
}

const v6Ranges: ReadonlyArray<V6Range> = [
  v6("64:ff9b:1::/48", "reserved"),
  v6("100::/64", "reserved"),
  v6("2001::/23", "reserved"),
  v6("2001:db8::/32", "reserved"),
  v6("3fff::/20", "reserved"),
  v6("fc00::/7", "unique_local"),
  v6("fe80::/10", "link_local"),
  v6("fec0::/10", "private_address"),
  v6("ff00::/8", "multicast")
]

const globalUnicast = v6("2000::/3", "reserved")

// An IPv4 address carried inside an IPv6 form that is not itself routed on the internet: a
// blocked IPv4 keeps its range, a public one makes the whole address `reserved`.
const embeddedOrReserved = (address: number): AddressRange => {
  const range = classifyIPv4(address)
  return range === "public" ? "reserved" : range
}

const classifyIPv6 = (groups: ReadonlyArray<number>): "public" | AddressRange => {
  const leadingZeros = groups.findIndex((group) => group !== 0)
  const zeros = leadingZeros === -1 ? 8 : leadingZeros
  const low32 = groups[6]! * 0x10000 + groups[7]!
  if (zeros === 8) return "unspecified"
  if (zeros === 7 && groups[7] === 1) return "loopback"
  // ::ffff:a.b.c.d (IPv4-mapped): the socket talks IPv4 to a.b.c.d.
  if (zeros === 5 && groups[5] === 0xffff) return classifyIPv4(low32)
  // ::a.b.c.d (IPv4-compatible, deprecated).
  if (zeros >= 6) return embeddedOrReserved(low32)
  // ::ffff:0:a.b.c.d (IPv4-translated, SIIT).
  if (zeros === 4 && groups[4] === 0xffff && groups[5] === 0) return embeddedOrReserved(low32)
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix): a NAT64 gateway forwards to a.b.c.d.
  if (inV6Prefix(groups, [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96)) return classifyIPv4(low32)
  // 2002:aabb:ccdd::/48 (6to4) carries a.b.c.d in its second and third groups.
  if (groups[0] === 0x2002) {
    const range = classifyIPv4(groups[1]! * 0x10000 + groups[2]!)
    if (range !== "public") return range
  }
  for (const { prefix, bits, range } of v6Ranges) {
    if (inV6Prefix(groups, prefix, bits)) return range
  }
  return inV6Prefix(groups, globalUnicast.prefix, globalUnicast.bits) ? "public" : "reserved"
}

/**
 * Classifies an IP address literal. IPv4 may be in any spelling a URL or C resolver accepts
 * (`127.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`); IPv6 may use `::`, an embedded dotted quad,
 * a zone id and surrounding brackets. IPv4 carried in IPv6 (mapped `::ffff:0:0/96`, compatible
 * `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is classified by the IPv4 inside.
 *
 * @example
 * ```ts
 * classifyAddress("::ffff:10.0.0.1") // "private_address"
 * classifyAddress("2606:4700::1111") // "public"
 * ```
 *
 * @since 0.1.0
 */
export const classifyAddress = (ip: string): AddressClass => {
  const literal = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip
  if (literal.includes(":")) {
    const groups = parseIPv6(literal)
    return groups === undefined ? "not_an_address" : classifyIPv6(groups)
  }
  const address = parseIPv4(literal)
  return address === undefined ? "not_an_address" : classifyIPv4(address)
}

/**
 * True when `ip` is an IP address literal that is globally reachable; false for every
 * blocked range and for anything that is not an address.
 *
 * @since 0.1.0
 */
export const isPublicAddress = (ip: string): boolean => classifyAddress(ip) === "public"

// ---------------------------------------------------------------------------------------------
// The URL check
// ---------------------------------------------------------------------------------------------

// `localhost` and every `*.localhost` name are loopback by definition (RFC 6761); they are
// never sent to DNS.
const isLocalhostName = (host: string): boolean => {
  const name = host.endsWith(".") ? host.slice(0, -1) : host
  return name === "localhost" || name.endsWith(".localhost")
}

const loopbackAddresses: ReadonlyArray<string> = ["127.0.0.1", "::1"]

/** Whether a URL's host (a name, an IPv4 address or a bracketed IPv6 one) is loopback. */
export const isLoopbackHost = (host: string): boolean =>
  isLocalhostName(host) || classifyAddress(host.replace(/^\[(.*)\]$/, "$1")) === "loopback"

/**
 * Checks a webhook URL and returns it with the addresses a delivery may connect to. Run it
 * before every delivery, not only at registration: the answer for a name can change.
 *
 * @example
 * ```ts
 * const { url, addresses } = yield* checkDeliveryAddress(endpoint.url, { allowLoopback: false })
 * ```
 *
 * @since 0.1.0
 */
export const checkDeliveryAddress: (
  url: string,
  options: CheckWebhookUrlOptions
) => Effect.Effect<DeliveryTarget, UnsafeUrl, Resolver> = Effect.fn("webhooks.checkDeliveryAddress")(function* (
  input: string,
  options: CheckWebhookUrlOptions
) {
  if (!URL.canParse(input)) return yield* new UnsafeUrl({ reason: "not_a_url" })
  const url = new URL(input)
  const host = url.hostname
  const scheme = url.protocol
  if (scheme !== "https:" && !(scheme === "http:" && options.allowLoopback)) {
    return yield* new UnsafeUrl({ reason: "not_https", host })
  }
  if (url.username !== "" || url.password !== "") return yield* new UnsafeUrl({ reason: "credentials", host })

  const literal = classifyAddress(host)
  let addresses: ReadonlyArray<string>
  if (literal !== "not_an_address") {
    addresses = [host.startsWith("[") ? host.slice(1, -1) : host]
  } else if (isLocalhostName(host)) {
    addresses = loopbackAddresses
  } else {
    addresses = yield* Resolver.use((resolver) => resolver.resolve(host)).pipe(
      Effect.catchTag("ResolveError", () => Effect.fail(new UnsafeUrl({ reason: "unresolvable", host })))
    )
    if (addresses.length === 0) return yield* new UnsafeUrl({ reason: "unresolvable", host })
  }

  let allLoopback = true
  for (const address of addresses) {
    const range = classifyAddress(address)
    if (range === "not_an_address") return yield* new UnsafeUrl({ reason: "unresolvable", host, address })
    if (range === "loopback" && options.allowLoopback) continue
    allLoopback = false
    if (range !== "public") return yield* new UnsafeUrl({ reason: range, host, address })
  }
  if (scheme === "http:" && !allLoopback) return yield* new UnsafeUrl({ reason: "not_https", host })
  return { url, addresses }
})

/**
 * The `invalid_url` rule for webhook endpoints. Fails with {@link UnsafeUrl} when the URL is
 * not https, carries credentials, or its host is or resolves to any non-public address
 * (every answer must be public). With `allowLoopback`, loopback targets (127.0.0.0/8,
 * `localhost`, `[::1]`) pass over http or https; every other rule still applies.
 *
 * @example
 * ```ts
 * const url = yield* checkWebhookUrl("https://hooks.example.com/postwire", { allowLoopback: false })
 * ```
 *
 * @since 0.1.0
 */
export const checkWebhookUrl = (
  url: string,
  options: CheckWebhookUrlOptions
): Effect.Effect<URL, UnsafeUrl, Resolver> =>
  Effect.map(checkDeliveryAddress(url, options), (target) => target.url)
