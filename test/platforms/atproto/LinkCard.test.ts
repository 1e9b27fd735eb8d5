/**
 * The Bluesky link card reads the linked page (its Open Graph tags, else `<title>` and the
 * description meta tag) and uploads its image as the thumbnail, under the outbound-address rules
 * (`UrlSafety`): a page on a refused address, a page that does not answer in time, or one that is
 * not HTML gives the bare card, and the post is published all the same.
 * https://docs.bsky.app/docs/advanced-guides/posts#website-card-embeds
 * https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/embed/external.json
 *
 * The pages are served by a real HTTP server on 127.0.0.1 (loopback is let through only where a
 * test says so, as `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS` does on a server).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import type { PlatformRouter } from "@postwire/platforms"
import { Effect } from "effect"
import * as LinkCard from "../../../packages/platforms/src/atproto/LinkCard.ts"
import * as Xrpc from "../../../packages/platforms/src/atproto/Xrpc.ts"
import { aRouter, drive } from "../adapterConformance.ts"
import { anAccount, aPost, aPublishInput, aTarget } from "../builders.ts"
import { aPng } from "../../support/Media.ts"
import * as PdsFake from "./PdsFake.ts"

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A web server on 127.0.0.1 serving the given paths; it records the paths asked for. */
const aSite = (routes: Record<string, Handler>) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ readonly url: string; readonly asked: Array<string>; readonly close: () => void }>((resolve) => {
          const asked: Array<string> = []
          const server = createServer((req, res) => {
            asked.push(req.url ?? "")
            const route = routes[(req.url ?? "").split("?")[0]!]
            if (route === undefined) {
              res.writeHead(404).end("not here")
              return
            }
            route(req, res)
          })
          server.listen(0, "127.0.0.1", () =>
            resolve({
              url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
              asked,
              close: () => {
                server.closeAllConnections()
                server.close()
              }
            })
          )
        })
    ),
    (site) => Effect.sync(site.close)
  )

const html = (body: string): Handler => (_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body)

const settings = (extra: Record<string, unknown>) => ({ atproto: { webHost: "https://bsky.app", ...extra } }) as unknown as PlatformRouter.Options

const aLinkPost = (fake: PdsFake.PdsFake, caption: string) => {
  const pair = fake.session()
  const account = anAccount("atproto", {
    handle: fake.handle,
    externalId: fake.did,
    credentials: Xrpc.encode({ did: fake.did, handle: fake.handle, service: fake.url, access_jwt: pair.access, refresh_jwt: pair.refresh })
  })
  return aPublishInput({ account, post: aPost({ caption }), target: aTarget(account), media: [] })
}

const externalOf = (fake: PdsFake.PdsFake) =>
  (fake.posts()[0]!.value.embed as { $type: string; external: { uri: string; title: string; description: string; thumb?: { mimeType: string; size: number } } })

describe("Bluesky link card", () => {
  it.live("carries the page's Open Graph title, description and image (uploaded as the thumbnail)", () =>
    Effect.gen(function* () {
      const png = aPng()
      const site = yield* aSite({
        "/menu": html(
          `<!doctype html><html><head><title>Ignored title</title>
           <meta property="og:title" content="Menu &amp; prices &#8212; Roti Bakery">
           <meta name="description" content="plain description">
           <meta property='og:description' content='Sourdough, "rye" and more'>
           <meta property="og:image" content="/img/loaf.png"></head><body>…</body></html>`
        ),
        "/img/loaf.png": (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from(png))
      })
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(settings({ linkCardAllowLoopback: true }))
      const result = yield* drive(client, aLinkPost(fake, `New menu: ${site.url}/menu`))
      assert.isDefined(result.published, result.failure?.platformCode)
      const embed = externalOf(fake)
      assert.strictEqual(embed.$type, "app.bsky.embed.external")
      assert.strictEqual(embed.external.uri, `${site.url}/menu`)
      assert.strictEqual(embed.external.title, "Menu & prices — Roti Bakery")
      assert.strictEqual(embed.external.description, 'Sourdough, "rye" and more')
      assert.strictEqual(embed.external.thumb?.mimeType, "image/png")
      assert.strictEqual(fake.count("upload"), 1)
    })
  )

  it.live("without Open Graph tags, takes the page's <title> and description meta tag; follows a redirect", () =>
    Effect.gen(function* () {
      const site = yield* aSite({
        "/old": (_req, res) => res.writeHead(301, { location: "/new" }).end(),
        "/new": html(`<html><head><title>  Opening
          hours </title><meta content="Open 7 to 3" name="description"></head></html>`)
      })
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(settings({ linkCardAllowLoopback: true }))
      const result = yield* drive(client, aLinkPost(fake, `${site.url}/old`))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.deepStrictEqual(externalOf(fake).external, { uri: `${site.url}/old`, title: "Opening hours", description: "Open 7 to 3" })
      assert.deepStrictEqual(site.asked, ["/old", "/new"])
    })
  )

  it.live("a page on a loopback address is not read when the server does not allow it: the bare card", () =>
    Effect.gen(function* () {
      const site = yield* aSite({ "/menu": html(`<meta property="og:title" content="Secret admin page">`) })
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(settings({}))
      const result = yield* drive(client, aLinkPost(fake, `See ${site.url}/menu`))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.deepStrictEqual(externalOf(fake).external, { uri: `${site.url}/menu`, title: `${site.url}/menu`, description: "" })
      assert.deepStrictEqual(site.asked, [], "no request reached the refused address")
    })
  )

  it.live("a page that does not answer within the time allowed gives the bare card and the post is published", () =>
    Effect.gen(function* () {
      const site = yield* aSite({ "/slow": () => undefined })
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(settings({ linkCardAllowLoopback: true, linkCardTimeoutMs: 200 }))
      const result = yield* drive(client, aLinkPost(fake, `${site.url}/slow`))
      assert.isDefined(result.published, result.failure?.platformCode)
      assert.strictEqual(externalOf(fake).external.title, `${site.url}/slow`)
      assert.deepStrictEqual(site.asked, ["/slow"])
    })
  )

  it.live("a page is read only up to its size bound, an image over the thumbnail limit is left out, and a non-HTML answer is a bare card", () =>
    Effect.gen(function* () {
      const padding = "x".repeat(4096)
      const site = yield* aSite({
        "/long": html(
          `<head><meta property="og:title" content="Early title"><meta property="og:image" content="/huge.png"></head>${padding}<meta property="og:description" content="too late">`
        ),
        "/huge.png": (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(LinkCard.thumbMaxBytes + 10)),
        "/data": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(`{"og:title":"no"}`)
      })
      const fake = yield* PdsFake.make()
      const client = yield* aRouter(settings({ linkCardAllowLoopback: true, linkCardMaxBytes: 1024 }))
      const long = yield* drive(client, aLinkPost(fake, `${site.url}/long`))
      assert.isDefined(long.published, long.failure?.platformCode)
      assert.deepStrictEqual(externalOf(fake).external, { uri: `${site.url}/long`, title: "Early title", description: "" })
      assert.strictEqual(fake.count("upload"), 0, "the oversized image was not uploaded")
      const fake2 = yield* PdsFake.make()
      const client2 = yield* aRouter(settings({ linkCardAllowLoopback: true }))
      const data = yield* drive(client2, aLinkPost(fake2, `${site.url}/data`))
      assert.isDefined(data.published, data.failure?.platformCode)
      assert.strictEqual(externalOf(fake2).external.title, `${site.url}/data`)
    })
  )

  it("reads the tags of a page as Bluesky's card does", () => {
    assert.deepStrictEqual(
      LinkCard.readPage(`<META NAME="twitter:title" CONTENT="Tw &quot;title&quot;"><meta name="twitter:image" content="https://cdn.example/a.jpg"><title>T</title>`),
      { title: 'Tw "title"', image: "https://cdn.example/a.jpg" }
    )
  })
})
