/**
 * The Mastodon server a person types on the connect page, and whether Postwire may call it.
 *
 * Postwire calls the typed address from its own network (to register its app there, trade the
 * code, publish): an address inside that network (`127.0.0.1`, `10.0.0.5`, `192.168.1.20`, the
 * cloud metadata address `169.254.169.254`, `[::1]`, `fd00::1`, or a name that resolves to one)
 * would let anyone with a connect link make the service call its neighbours. So the address
 * follows the rules of webhook endpoints (`UrlSafety.checkDeliveryAddress` of `@postwire/core`):
 * `https://` only, and every address the name resolves to must be public. With
 * `allowLoopback` (the same switch as webhooks, `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1`, for
 * development and tests), loopback servers are reached too, over `http://` or `https://`;
 * private and link-local addresses never are.
 *
 * @since 0.5.0
 */
import { lookup } from "node:dns/promises"
import { type ConnectFailure, UrlSafety, Webhooks } from "@postwire/core"
import type { LocalizedText } from "@postwire/domain"
import { Effect } from "effect"
import { connectFailure } from "../internal/ConnectWire.ts"
import * as Reasons from "./Reasons.ts"

/** The connect page's field: the server's address. */
export const serverField = "server"

/** A name Mastodon can live at: labels of letters, digits and `-`, and a top-level domain. */
const domainName = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9-]{2,}$/i
const dottedQuad = /^\d{1,3}(?:\.\d{1,3}){3}$/

/**
 * The server's address from what the person typed: `mastodon.social`, `https://mastodon.social/`
 * or `@maya@mastodon.social` all give `https://mastodon.social`; `undefined` when it is not an
 * address (another scheme, a path, a query, credentials). `http://` is kept: {@link checkServer}
 * refuses it, saying why (`https` is required; loopback servers only with `allowLoopback`).
 */
export const serverAddress = (typed: string): string | undefined => {
  let text = typed.trim()
  const handle = /^@?[a-z0-9_.-]+@([a-z0-9.-]+(?::\d+)?)$/i.exec(text)
  if (handle !== null) text = handle[1]!
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `https://${text}`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined
  const host = url.hostname
  const named = domainName.test(host) || host === "localhost"
  const literal = dottedQuad.test(host) || (host.startsWith("[") && host.endsWith("]"))
  if (!named && !literal) return undefined
  if (url.pathname !== "/" && url.pathname !== "") return undefined
  return url.origin
}

/** A refusal of what the person typed, shown at the page's field (400 `invalid_request` at `fields.server`). */
export const atField = (platformCode: string, detail: LocalizedText): ConnectFailure =>
  connectFailure("invalid_request", platformCode, { details: { field: `fields.${serverField}`, detail } })

/** Why an unsafe address is refused, in both languages. */
const refusalOf = (error: UrlSafety.UnsafeUrl): ConnectFailure => {
  switch (error.reason) {
    case "not_a_url":
    case "credentials":
      return atField("server_address", Reasons.reason("fediverse_server_address"))
    case "not_https":
      return atField("server_not_https", Webhooks.describeUnsafeUrl(error))
    case "unresolvable":
      return atField("server_unresolvable", Webhooks.describeUnsafeUrl(error))
    default:
      // A loopback, private, link-local, shared, multicast or reserved address.
      return atField(`server_${error.reason}`, Reasons.reason("fediverse_server_not_public", { range: Webhooks.describeUnsafeUrl(error) }))
  }
}

/** The operating system's resolver (`dns.lookup`, every IPv4 and IPv6 answer). */
export const systemResolver: UrlSafety.Resolver["Service"] = {
  resolve: (host) =>
    Effect.tryPromise({
      try: () => lookup(host, { all: true, verbatim: true }),
      catch: (cause) => new UrlSafety.ResolveError({ host, cause })
    }).pipe(Effect.map((answers) => answers.map((answer) => answer.address)))
}

/**
 * Checks a server address ({@link serverAddress}'s answer) before anything is sent to it: the
 * name is resolved and every address must be public (loopback too with `allowLoopback`); a
 * refusal is the field's error naming the address and its kind.
 */
export const checkServer = (
  server: string,
  options: { readonly allowLoopback: boolean; readonly resolver: UrlSafety.Resolver["Service"] }
): Effect.Effect<void, ConnectFailure> =>
  UrlSafety.checkDeliveryAddress(server, { allowLoopback: options.allowLoopback }).pipe(
    Effect.provideService(UrlSafety.Resolver, options.resolver),
    Effect.mapError(refusalOf),
    Effect.asVoid
  )
