/**
 * The link card of a post without media: Postwire reads the linked page the way Bluesky's app
 * does (its `og:title`, `og:description` and `og:image`, else `<title>` and the `description`
 * meta tag) and uploads the image as the card's thumbnail (`app.bsky.embed.external#external`
 * `thumb`: `image/*`, at most 1,000,000 bytes).
 * https://docs.bsky.app/docs/advanced-guides/posts#website-card-embeds
 * https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/embed/external.json
 * https://ogp.me/
 *
 * A post's link is an address a user typed, so the page is read under the same outbound rules as
 * webhooks and media imports (`UrlSafety.checkDeliveryAddress` from `@postwire/core`): https only,
 * no credentials, every address the name resolves to must be public (loopback only when the
 * server allows it for tests), the connection goes to the checked addresses only, and each
 * redirect (at most 3) is checked again. The page is read up to `maxBytes` and `timeoutMs`; a page
 * that cannot be read (refused, unreachable, slow, not HTML) gives the bare card: the link as its
 * title and no description. A card never fails a post.
 *
 * @since 0.6.0
 */
import type { LookupAddress } from "node:dns"
import { lookup } from "node:dns/promises"
import { type IncomingMessage, request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIPv6 } from "node:net"
import { UrlSafety } from "@postwire/core"
import { Effect, Layer } from "effect"

/** How the page is read. */
export interface CardSettings {
  /** Read the page at all; `false`: every card is bare. */
  readonly fetch: boolean
  /** Let loopback addresses through (tests; the server's `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS`). */
  readonly allowLoopback: boolean
  /** Time allowed for the page (and, separately, for its image), in milliseconds. */
  readonly timeoutMs: number
  /** The most of the page read, in bytes: the tags are looked for in that much. */
  readonly maxBytes: number
}

/** The external embed's `external` object, before its thumbnail is uploaded. */
export interface Card {
  readonly uri: string
  readonly title: string
  readonly description: string
  /** The page's image, read and within the thumbnail limit; absent when there is none. */
  readonly image?: { readonly bytes: Uint8Array; readonly mime: string } | undefined
}

/** The largest thumbnail the lexicon accepts (`thumb.maxSize`). */
export const thumbMaxBytes = 1_000_000

const titleMax = 300
const descriptionMax = 1000
const redirectsMax = 3

/** The card of a page that could not be read: the link as its title. */
export const bare = (uri: string): Card => ({ uri, title: uri, description: "" })

/** `UrlSafety.Resolver` over the operating system's resolver (`dns.lookup`, every answer). */
const systemResolver = Layer.succeed(UrlSafety.Resolver)({
  resolve: (host) =>
    Effect.tryPromise({
      try: () => lookup(host, { all: true, verbatim: true }),
      catch: (cause) => new UrlSafety.ResolveError({ host, cause })
    }).pipe(Effect.map((answers) => answers.map((answer) => answer.address)))
})

interface Answer {
  readonly status: number
  readonly location: string | undefined
  readonly contentType: string
  readonly body: Uint8Array
  /** The body was longer than allowed and was cut. */
  readonly cut: boolean
}

/** One GET to checked addresses only, reading at most `maxBytes` of the body. */
const getOnce = (target: UrlSafety.DeliveryTarget, maxBytes: number, accept: string) =>
  Effect.callback<Answer, "unreachable">((resume, signal) => {
    const url = target.url
    const pinned: Array<LookupAddress> = target.addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
    const onAnswer = (res: IncomingMessage) => {
      const status = res.statusCode ?? 0
      const location = typeof res.headers.location === "string" ? res.headers.location : undefined
      const contentType = (res.headers["content-type"] ?? "").toLowerCase()
      if (status < 200 || status >= 300) {
        res.destroy()
        return resume(Effect.succeed({ status, location, contentType, body: new Uint8Array(0), cut: false }))
      }
      const chunks: Array<Buffer> = []
      let size = 0
      let done = false
      const finish = (cut: boolean) => {
        if (done) return
        done = true
        resume(Effect.succeed({ status, location, contentType, body: new Uint8Array(Buffer.concat(chunks)), cut }))
      }
      res.on("data", (chunk: Buffer) => {
        if (done) return
        const room = maxBytes - size
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk)
        size += Math.min(chunk.length, room)
        if (chunk.length > room) {
          finish(true)
          res.destroy()
        }
      })
      res.on("end", () => finish(false))
      res.on("error", () => finish(true))
    }
    try {
      const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(
        {
          method: "GET",
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
          port: url.port === "" ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { accept, "user-agent": "Postwire link card (+https://github.com/postwire)" },
          agent: false,
          signal,
          // Connect only to the addresses that were checked: no second resolution.
          lookup: (_host, options, callback) => {
            const usable = pinned.filter((entry) => !options.family || entry.family === options.family)
            const first = usable[0]
            if (first === undefined) {
              const error: NodeJS.ErrnoException = new Error("no checked address")
              error.code = "ENOTFOUND"
              return callback(error, "", 4)
            }
            if (options.all === true) return (callback as (e: null, all: Array<LookupAddress>) => void)(null, usable)
            return callback(null, first.address, first.family)
          }
        },
        onAnswer
      )
      req.on("error", () => resume(Effect.fail("unreachable" as const)))
      req.end()
    } catch {
      resume(Effect.fail("unreachable" as const))
    }
  })

/** Follows redirects, each address checked before it is called; a 2xx answer or nothing. */
const get = (address: string, settings: CardSettings, maxBytes: number, accept: string) =>
  Effect.gen(function* () {
    let next = address
    for (let hop = 0; hop <= redirectsMax; hop++) {
      const target = yield* UrlSafety.checkDeliveryAddress(next, { allowLoopback: settings.allowLoopback })
      const answer = yield* getOnce(target, maxBytes, accept)
      if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
        next = new URL(answer.location, target.url).toString()
        continue
      }
      if (answer.status < 200 || answer.status >= 300) return undefined
      return { url: target.url, answer }
    }
    return undefined
  }).pipe(
    Effect.timeout(settings.timeoutMs),
    Effect.provide(systemResolver),
    Effect.catch(() => Effect.succeed(undefined))
  )

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }

/** Decodes the character references of an attribute or text. */
export const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return entities[ref.toLowerCase()] ?? whole
  })

const attributes = (tag: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) {
    out[m[1]!.toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "")
  }
  return out
}

const tidy = (text: string, max: number): string => {
  const clean = text.replace(/\s+/g, " ").trim()
  const chars = Array.from(clean)
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join("")}…`
}

/** What a page says of itself: Open Graph tags first, then `<title>` and the description meta tag. */
export const readPage = (html: string): { readonly title?: string; readonly description?: string; readonly image?: string } => {
  const meta = new Map<string, string>()
  for (const m of html.matchAll(/<meta\b[^>]*>/gi)) {
    const a = attributes(m[0])
    const key = (a.property ?? a.name ?? "").toLowerCase()
    if (key !== "" && a.content !== undefined && !meta.has(key)) meta.set(key, a.content)
  }
  const titleTag = /<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]
  const pick = (...keys: ReadonlyArray<string | undefined>) => keys.find((k) => k !== undefined && k.trim() !== "")
  const title = pick(meta.get("og:title"), meta.get("twitter:title"), titleTag === undefined ? undefined : decodeEntities(titleTag))
  const description = pick(meta.get("og:description"), meta.get("twitter:description"), meta.get("description"))
  const image = pick(meta.get("og:image"), meta.get("og:image:url"), meta.get("og:image:secure_url"), meta.get("twitter:image"))
  return {
    ...(title === undefined ? {} : { title: tidy(title, titleMax) }),
    ...(description === undefined ? {} : { description: tidy(description, descriptionMax) }),
    ...(image === undefined ? {} : { image: image.trim() })
  }
}

const charsetOf = (contentType: string): string => /charset\s*=\s*"?([-\w]+)/i.exec(contentType)?.[1] ?? "utf-8"

const text = (body: Uint8Array, contentType: string): string => {
  try {
    return new TextDecoder(charsetOf(contentType)).decode(body)
  } catch {
    return new TextDecoder("utf-8").decode(body)
  }
}

/** Reads the card of `uri`; the bare card when the page cannot be read. Never fails. */
export const read = (uri: string, settings: CardSettings): Effect.Effect<Card> =>
  Effect.gen(function* () {
    if (!settings.fetch) return bare(uri)
    const page = yield* get(uri, settings, settings.maxBytes, "text/html, application/xhtml+xml")
    if (page === undefined) return bare(uri)
    const type = page.answer.contentType
    if (!type.includes("html")) return bare(uri)
    const found = readPage(text(page.answer.body, type))
    let image: Card["image"]
    if (found.image !== undefined && URL.canParse(found.image, page.url)) {
      const picture = yield* get(new URL(found.image, page.url).toString(), settings, thumbMaxBytes + 1, "image/*")
      const mime = picture?.answer.contentType.split(";")[0]?.trim() ?? ""
      if (picture !== undefined && !picture.answer.cut && mime.startsWith("image/") && picture.answer.body.length > 0) {
        image = { bytes: picture.answer.body, mime }
      }
    }
    return {
      uri,
      title: found.title ?? uri,
      description: found.description ?? "",
      ...(image === undefined ? {} : { image })
    }
  }).pipe(Effect.withSpan("atproto.linkCard"))
