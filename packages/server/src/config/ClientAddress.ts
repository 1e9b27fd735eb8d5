/**
 * The address of the client behind a request, for the limits counted per address.
 *
 * The connection's peer is the client unless it is one of the trusted proxies
 * (`POSTWIRE_TRUSTED_PROXIES`, addresses and CIDRs, IPv4 and IPv6). Only then is the hop list of
 * `X-Forwarded-For` (or, when the request has none, `Forwarded`) believed: the client is the
 * right-most hop that is not a trusted proxy, since every hop left of the last trusted one was
 * written by whoever sent the request and can say anything.
 *
 * @since 0.5.0
 */
import { BlockList, isIP } from "node:net"
import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"

/** Which peers are believed when they say whom they forward for. */
export interface TrustedProxies {
  /** Whether `address` (a bare IPv4 or IPv6 address) is a trusted proxy. */
  readonly trusts: (address: string) => boolean
  /** The entries as configured, for the docs and the start-up banner. */
  readonly entries: ReadonlyArray<string>
}

/** No proxy is trusted: the connection's peer is always the client. */
export const none: TrustedProxies = { trusts: () => false, entries: [] }

/**
 * Reads a comma-separated list of addresses and CIDRs (`10.0.0.0/8, 192.168.1.7, fd00::/8`);
 * returns the problem with the first entry that is neither, as a string.
 */
export const parse = (raw: string): TrustedProxies | string => {
  const entries = raw
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
  if (entries.length === 0) return none
  const list = new BlockList()
  for (const entry of entries) {
    const [address = "", prefix, extra] = entry.split("/")
    const family = isIP(address)
    if (family === 0 || extra !== undefined) return `expected addresses or CIDRs separated by commas, got "${entry}"`
    const type = family === 4 ? "ipv4" : "ipv6"
    if (prefix === undefined) {
      list.addAddress(address, type)
      continue
    }
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN
    if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) return `expected a prefix length in "${entry}"`
    list.addSubnet(address, bits, type)
  }
  return {
    entries,
    trusts: (address) => {
      const family = isIP(address)
      return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6")
    }
  }
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, a dual-stack socket's view) as plain IPv4. */
const plain = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return mapped === null ? address : mapped[1]!
}

/** One hop of `X-Forwarded-For` or a `for=` of `Forwarded`, without quotes, brackets or port. */
const hopAddress = (hop: string): string => {
  let value = hop.trim()
  if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
  if (value.startsWith("[")) return plain(value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]")))
  // `192.0.2.1:4711` carries a port; a bare IPv6 address has several colons and none.
  const colon = value.indexOf(":")
  if (colon !== -1 && colon === value.lastIndexOf(":")) value = value.slice(0, colon)
  return plain(value)
}

/** The hops a request names, left (first sender) to right (last proxy before us). */
const forwardedHops = (headers: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const xff = headers["x-forwarded-for"]
  if (xff !== undefined && xff.trim() !== "") return xff.split(",").map(hopAddress)
  const forwarded = headers.forwarded
  if (forwarded === undefined) return []
  const hops: Array<string> = []
  for (const element of forwarded.split(",")) {
    for (const pair of element.split(";")) {
      const at = pair.indexOf("=")
      if (at !== -1 && pair.slice(0, at).trim().toLowerCase() === "for") hops.push(hopAddress(pair.slice(at + 1)))
    }
  }
  return hops
}

/**
 * The client's address: the peer, or, when the peer is a trusted proxy, the right-most hop of the
 * forwarding headers that is not one (the left-most hop when all are); `unknown` without a peer.
 */
export const of = (request: HttpServerRequest.HttpServerRequest, trusted: TrustedProxies): string => {
  const peer = plain(Option.getOrElse(request.remoteAddress, () => "unknown"))
  if (!trusted.trusts(peer)) return peer
  const hops = forwardedHops(request.headers)
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!
    // Anything that is not an address (`unknown`, an obfuscated `_name`) ends the trusted chain.
    if (!trusted.trusts(hop)) return isIP(hop) === 0 ? `unnamed:${peer}` : hop
  }
  return hops[0] ?? peer
}
