/** Shared fixtures of the Mastodon tests: the router over the plugin, an account on the fake, a post. */
import type { PublishMedia } from "@postwire/core"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as FediverseCredentials from "../../../packages/platforms/src/fediverse/FediverseCredentials.ts"
import * as Wire from "../../../packages/platforms/src/internal/Wire.ts"
import { anAccount, aPost, aPublishInput, aTarget } from "../builders.ts"
import type { MastodonFake } from "./MastodonFake.ts"

/** Router options: Mastodon's publishing settings with short polls, the fake on loopback allowed. */
export const routerOptions = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  fediverse: { pollIntervalMs: 1, allowLoopback: true, ...overrides }
})

/** The wire the tests' connectors use: fetch, 3 attempts 1 ms apart. */
export const makeWire = Effect.gen(function* () {
  const client = yield* HttpClient.HttpClient
  return Wire.make(client, { timeoutMs: 5_000, retry: { attempts: 3, baseDelayMs: 1 } })
}).pipe(Effect.provide(FetchHttpClient.layer))

/** The owner's account on the fake (at `server`, the fake's own address by default). */
export const anOwnerAccount = (fake: MastodonFake, token: string = fake.ownerToken, server: string = fake.origin) =>
  anAccount("fediverse", {
    handle: `maya@127.0.0.1`,
    externalId: `${fake.owner.id}@127.0.0.1`,
    credentials: FediverseCredentials.encode({
      server,
      access_token: token,
      client_id: "preset",
      client_secret: "preset-secret",
      account_id: fake.owner.id
    })
  })

/** A publish of `caption` with `media` and the target's Mastodon options. */
export const aMastodonPost = (
  fake: MastodonFake,
  options: {
    readonly caption?: string
    readonly media?: ReadonlyArray<PublishMedia>
    readonly fediverse?: Record<string, unknown>
    readonly token?: string
    /** The server's address in the account's credentials (a name the test's resolver answers). */
    readonly server?: string
  } = {}
) => {
  const account = anOwnerAccount(fake, options.token, options.server)
  const target = aTarget(account, options.fediverse === undefined ? {} : { options: { fediverse: options.fediverse } as never })
  return aPublishInput({ account, target, post: aPost(options.caption === undefined ? {} : { caption: options.caption }), media: options.media ?? [] })
}
