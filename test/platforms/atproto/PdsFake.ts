/**
 * A fake PDS (and the App View it proxies to) speaking XRPC as the reference server does:
 * `/xrpc/{nsid}`, bearer sessions, the protocol's error bodies (`{"error": "InvalidRequest",
 * "message": "…"}`), `ExpiredToken` for an expired access token, 429 `RateLimitExceeded` with the
 * `ratelimit-*` headers, and the lexicons' limits on a post (300 graphemes, 3000 bytes, 4 images).
 * https://atproto.com/specs/xrpc
 * https://docs.bsky.app/docs/advanced-guides/rate-limits
 * https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/feed/post.json
 *
 * Faults per route (`create`, `getRecord`, `upload`, `thread`, …) come from `FakeServer`.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "../fakes/FakeServer.ts"

/** One record of a repository. */
export interface StoredRecord {
  readonly uri: string
  readonly cid: string
  readonly value: Record<string, unknown>
  readonly indexedAt: string
}

/** The fake, with what it holds and switches a test turns. */
export interface PdsFake extends FakeServer {
  readonly did: string
  readonly handle: string
  readonly appPassword: string
  /** Records by URI. */
  readonly records: Map<string, StoredRecord>
  readonly blobs: Map<string, { readonly mimeType: string; readonly size: number }>
  /** Handles the fake resolves (besides the account's own). */
  readonly handles: Map<string, string>
  /** Other people's profiles (DID → handle), for replies they write. */
  readonly profiles: Map<string, string>
  /** Live sessions: access token → expired?, refresh tokens. */
  readonly access: Map<string, { expired: boolean }>
  readonly refresh: Set<string>
  /** The largest blob accepted, in bytes (a self-hosted PDS's default is 5 MiB). */
  blobLimit: number
  /** Answers the next N calls with 429 RateLimitExceeded, resetting at this epoch second. */
  rateLimited: { remaining: number; resetAt: number }
  /** The status of an `ExpiredToken` answer: 400 as the reference PDS, 401 as some proxies. */
  expiredStatus: number
  /** Starts a session without the connect flow: the credentials JSON Postwire would keep. */
  readonly session: () => { readonly access: string; readonly refresh: string }
  /** Writes a reply by another account under `parent` (root `root`). */
  readonly addReply: (options: { readonly did: string; readonly text: string; readonly parent: string; readonly root: string }) => StoredRecord
  /** Service-auth tokens issued (`getServiceAuth`), with their audience and method. */
  readonly serviceTokens: Map<string, { readonly aud: string; readonly lxm: string | undefined }>
  /** Posts of the account (not replies), oldest first. */
  readonly posts: () => ReadonlyArray<StoredRecord>
}

const error = (status: number, name: string, message: string, headers?: Record<string, string>): FakeReply => ({
  status,
  json: { error: name, message },
  ...(headers === undefined ? {} : { headers })
})

const jwt = (claims: Record<string, unknown>) =>
  [
    Buffer.from(JSON.stringify({ typ: "at+jwt", alg: "HS256" })).toString("base64url"),
    Buffer.from(JSON.stringify(claims)).toString("base64url"),
    createHash("sha256").update(JSON.stringify(claims)).update(String(Math.random())).digest("base64url")
  ].join(".")

const cidOf = (value: unknown) => `bafyrei${createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 52)}`

const graphemes = (text: string) => Array.from(new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)).length

const tidPattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/

/** Checks a post record as the PDS's lexicon validation does; the first problem, if any. */
const postProblem = (record: Record<string, unknown>, blobs: PdsFake["blobs"]): string | undefined => {
  const text = record.text
  if (typeof text !== "string") return "Record/text must be a string"
  if (Buffer.byteLength(text, "utf8") > 3000) return "Record/text must not be longer than 3000 characters"
  if (graphemes(text) > 300) return `grapheme too big (maximum 300, got ${graphemes(text)}) at $.record.text`
  if (typeof record.createdAt !== "string") return 'Record must have the property "createdAt"'
  const facets = record.facets
  if (Array.isArray(facets)) {
    const bytes = Buffer.byteLength(text, "utf8")
    for (const f of facets as Array<{ index?: { byteStart?: number; byteEnd?: number } }>) {
      const start = f.index?.byteStart
      const end = f.index?.byteEnd
      if (typeof start !== "number" || typeof end !== "number" || start < 0 || end > bytes || start >= end) {
        return "Record/facets/index must be within the text"
      }
    }
  }
  const embed = record.embed as Record<string, unknown> | undefined
  if (embed !== undefined) {
    const blobRefs: Array<unknown> = []
    if (embed.$type === "app.bsky.embed.images") {
      const images = embed.images
      if (!Array.isArray(images)) return "Record/embed/images must be an array"
      if (images.length > 4) return "Record/embed/images must not have more than 4 elements"
      for (const image of images as Array<Record<string, unknown>>) {
        if (typeof image.alt !== "string") return 'Record/embed/images/0 must have the property "alt"'
        blobRefs.push(image.image)
      }
    } else if (embed.$type === "app.bsky.embed.video") {
      blobRefs.push(embed.video)
    } else if (embed.$type === "app.bsky.embed.external") {
      const external = embed.external as Record<string, unknown> | undefined
      if (typeof external?.uri !== "string" || typeof external.title !== "string" || typeof external.description !== "string") {
        return "Record/embed/external must have uri, title and description"
      }
      if (external.thumb !== undefined) blobRefs.push(external.thumb)
    }
    for (const ref of blobRefs) {
      const link = (ref as { ref?: { $link?: string } } | undefined)?.ref?.$link
      if (link === undefined || !blobs.has(link)) return "Could not find blob: the blob was not uploaded"
    }
  }
  return undefined
}

/** Starts the fake PDS on 127.0.0.1. */
export const make = () =>
  Effect.gen(function* () {
    const did = "did:plc:maya7bakes7fake7pds7aaaa"
    const handle = "maya.bsky.social"
    let fake!: PdsFake
    const collectionOf = (uri: string) => uri.split("/")[3] ?? ""
    const answerSession = (): FakeReply => {
      const pair = fake.session()
      return {
        status: 200,
        json: {
          did,
          handle,
          accessJwt: pair.access,
          refreshJwt: pair.refresh,
          active: true,
          didDoc: {
            "@context": ["https://www.w3.org/ns/did/v1"],
            id: did,
            alsoKnownAs: [`at://${handle}`],
            service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: fake.url }]
          }
        }
      }
    }
    const bearer = (request: FakeRequest) => (request.headers.authorization ?? "").replace(/^Bearer /, "")
    const authed = (request: FakeRequest): FakeReply | undefined => {
      const token = bearer(request)
      const session = fake.access.get(token)
      if (token === "") return error(401, "AuthMissing", "Authentication Required")
      if (session === undefined) return error(400, "InvalidToken", "Token could not be verified")
      if (session.expired) return error(fake.expiredStatus, "ExpiredToken", "Token has expired")
      return undefined
    }
    const threadView = (record: StoredRecord, depth: number): Record<string, unknown> => {
      const author = record.uri.split("/")[2]!
      const replies =
        depth <= 0
          ? undefined
          : [...fake.records.values()]
              .filter((r) => (r.value.reply as { parent?: { uri?: string } } | undefined)?.parent?.uri === record.uri)
              .map((r) => threadView(r, depth - 1))
      return {
        $type: "app.bsky.feed.defs#threadViewPost",
        post: {
          uri: record.uri,
          cid: record.cid,
          author: { did: author, handle: author === did ? handle : (fake.profiles.get(author) ?? "handle.invalid"), displayName: author === did ? "Maya" : undefined },
          record: record.value,
          indexedAt: record.indexedAt,
          likeCount: 0,
          replyCount: replies?.length ?? 0
        },
        ...(replies === undefined ? {} : { replies })
      }
    }
    const write = (repo: string, collection: string, rkey: string, value: Record<string, unknown>): StoredRecord => {
      const uri = `at://${repo}/${collection}/${rkey}`
      const stored = { uri, cid: cidOf({ value, uri }), value, indexedAt: new Date().toISOString() }
      fake.records.set(uri, stored)
      return stored
    }

    const server = yield* start({
      route: (request) => {
        const nsid = request.path.replace(/^\/xrpc\//, "")
        const routes: Record<string, string> = {
          "com.atproto.server.createSession": "createSession",
          "com.atproto.server.refreshSession": "refreshSession",
          "com.atproto.server.deleteSession": "deleteSession",
          "com.atproto.repo.uploadBlob": "upload",
          "com.atproto.repo.createRecord": "create",
          "com.atproto.repo.putRecord": "put",
          "com.atproto.repo.getRecord": "getRecord",
          "com.atproto.repo.deleteRecord": "delete",
          "com.atproto.repo.listRecords": "list",
          "com.atproto.identity.resolveHandle": "resolveHandle",
          "com.atproto.server.getServiceAuth": "serviceAuth",
          "app.bsky.feed.getPostThread": "thread"
        }
        return routes[nsid] ?? "unknown"
      },
      handle: (route, request) => {
        if (route === "unknown") return error(501, "MethodNotImplemented", "Method Not Implemented")
        if (fake.rateLimited.remaining > 0 && route !== "createSession") {
          fake.rateLimited.remaining -= 1
          return error(429, "RateLimitExceeded", "Rate Limit Exceeded", {
            "ratelimit-limit": "5000",
            "ratelimit-remaining": "0",
            "ratelimit-reset": String(fake.rateLimited.resetAt),
            "ratelimit-policy": "5000;w=3600"
          })
        }
        const body = (request.json ?? {}) as Record<string, unknown>
        switch (route) {
          case "createSession": {
            const id = String(body.identifier ?? "")
            if ((id !== handle && id !== did) || body.password !== fake.appPassword) {
              return error(401, "AuthenticationRequired", "Invalid identifier or password")
            }
            return answerSession()
          }
          case "refreshSession": {
            const token = bearer(request)
            if (!fake.refresh.has(token)) return error(400, "ExpiredToken", "Token has been revoked")
            fake.refresh.delete(token)
            return answerSession()
          }
          case "deleteSession": {
            const token = bearer(request)
            if (!fake.refresh.has(token)) return error(400, "ExpiredToken", "Token has been revoked")
            fake.refresh.delete(token)
            return { status: 200, raw: "" }
          }
        }
        const refused = authed(request)
        if (refused !== undefined) return refused
        switch (route) {
          case "resolveHandle": {
            const name = request.query.get("handle") ?? ""
            const found = name === handle ? did : fake.handles.get(name)
            return found === undefined ? error(400, "InvalidRequest", "Unable to resolve handle") : { status: 200, json: { did: found } }
          }
          case "serviceAuth": {
            // https://github.com/bluesky-social/atproto/blob/main/lexicons/com/atproto/server/getServiceAuth.json
            const aud = request.query.get("aud") ?? ""
            const lxm = request.query.get("lxm") ?? undefined
            const exp = Number(request.query.get("exp") ?? Math.floor(Date.now() / 1000) + 60)
            if (!aud.startsWith("did:")) return error(400, "InvalidRequest", "aud must be a DID")
            const token = jwt({ iss: did, aud, lxm, exp })
            fake.serviceTokens.set(token, { aud, lxm })
            return { status: 200, json: { token } }
          }
          case "upload": {
            const size = Buffer.byteLength(request.body, "utf8")
            if (size > fake.blobLimit) return error(413, "PayloadTooLarge", "request entity too large")
            const mimeType = String(request.headers["content-type"] ?? "application/octet-stream")
            const link = cidOf({ body: request.body, mimeType, n: fake.blobs.size })
            fake.blobs.set(link, { mimeType, size })
            return { status: 200, json: { blob: { $type: "blob", ref: { $link: link }, mimeType, size } } }
          }
          case "create":
          case "put": {
            if (body.repo !== did && body.repo !== handle) return error(400, "InvalidRequest", "Input/repo must be the authenticated account")
            const collection = String(body.collection ?? "")
            const record = body.record as Record<string, unknown> | undefined
            if (record === undefined || typeof record !== "object") return error(400, "InvalidRequest", 'Input must have the property "record"')
            const rkey = typeof body.rkey === "string" ? body.rkey : undefined
            if (collection === "app.bsky.feed.post") {
              if (rkey !== undefined && !tidPattern.test(rkey)) return error(400, "InvalidRequest", "Invalid record key: must be a TID")
              const problem = postProblem(record, fake.blobs)
              if (problem !== undefined) return error(400, "InvalidRequest", `Invalid app.bsky.feed.post record: ${problem}`)
            }
            const key = rkey ?? `3l${String(fake.records.size).padStart(11, "2")}`
            const uri = `at://${did}/${collection}/${key}`
            const existing = fake.records.get(uri)
            // The reference PDS answers a create under a key it already holds with a bare 500.
            if (route === "create" && existing !== undefined) return error(500, "InternalServerError", "Internal Server Error")
            if (route === "put" && typeof body.swapRecord === "string" && existing?.cid !== body.swapRecord) {
              return error(400, "InvalidSwap", "Record was at " + (existing?.cid ?? "null"))
            }
            const stored = write(did, collection, key, record)
            return { status: 200, json: { uri: stored.uri, cid: stored.cid, validationStatus: "valid" } }
          }
          case "getRecord": {
            const uri = `at://${request.query.get("repo") === handle ? did : request.query.get("repo")}/${request.query.get("collection")}/${request.query.get("rkey")}`
            const found = fake.records.get(uri)
            return found === undefined
              ? error(400, "RecordNotFound", `Could not locate record: ${uri}`)
              : { status: 200, json: { uri: found.uri, cid: found.cid, value: found.value } }
          }
          case "delete": {
            const uri = `at://${did}/${body.collection}/${body.rkey}`
            fake.records.delete(uri)
            return { status: 200, json: {} }
          }
          case "list": {
            const collection = request.query.get("collection") ?? ""
            const records = [...fake.records.values()].filter((r) => r.uri.startsWith(`at://${did}/${collection}/`)).reverse()
            return { status: 200, json: { records: records.map((r) => ({ uri: r.uri, cid: r.cid, value: r.value })) } }
          }
          case "thread": {
            const uri = request.query.get("uri") ?? ""
            const found = fake.records.get(uri)
            if (found === undefined) return error(400, "NotFound", `Post not found: ${uri}`)
            const depth = Number(request.query.get("depth") ?? "6")
            const root = (found.value.reply as { root?: { uri?: string } } | undefined)?.root?.uri ?? uri
            const gate = fake.records.get(`at://${root.split("/")[2]}/app.bsky.feed.threadgate/${root.split("/")[4]}`)
            return {
              status: 200,
              json: {
                thread: threadView(found, depth),
                ...(gate === undefined ? {} : { threadgate: { uri: gate.uri, cid: gate.cid, record: gate.value } })
              }
            }
          }
        }
        return error(501, "MethodNotImplemented", "Method Not Implemented")
      }
    })
    fake = Object.assign(server, {
      did,
      handle,
      appPassword: "abcd-efgh-ijkl-mnop",
      records: new Map<string, StoredRecord>(),
      blobs: new Map<string, { mimeType: string; size: number }>(),
      serviceTokens: new Map<string, { aud: string; lxm: string | undefined }>(),
      handles: new Map<string, string>([["alice.example.com", "did:plc:alice7example7aaaaaaaaaa"]]),
      profiles: new Map<string, string>([["did:plc:alice7example7aaaaaaaaaa", "alice.example.com"]]),
      access: new Map<string, { expired: boolean }>(),
      refresh: new Set<string>(),
      blobLimit: 5 * 1024 * 1024,
      rateLimited: { remaining: 0, resetAt: 0 },
      expiredStatus: 400,
      session: () => {
        const now = Math.floor(Date.now() / 1000)
        const access = jwt({ scope: "com.atproto.appPass", sub: did, iat: now, exp: now + 7200 })
        const refresh = jwt({ scope: "com.atproto.refresh", sub: did, iat: now, exp: now + 90 * 86400, jti: String(Math.random()) })
        fake.access.set(access, { expired: false })
        fake.refresh.add(refresh)
        return { access, refresh }
      },
      addReply: (options: { did: string; text: string; parent: string; root: string }) => {
        const parent = fake.records.get(options.parent)!
        const root = fake.records.get(options.root)!
        const rkey = `3m${String(fake.records.size).padStart(11, "2")}`
        return write(options.did, "app.bsky.feed.post", rkey, {
          $type: "app.bsky.feed.post",
          text: options.text,
          createdAt: new Date().toISOString(),
          reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: parent.uri, cid: parent.cid } }
        })
      },
      posts: () =>
        [...fake.records.values()].filter(
          (r) => r.uri.startsWith(`at://${did}/app.bsky.feed.post/`) && r.value.reply === undefined
        )
    }) as PdsFake
    void collectionOf
    return fake
  })
