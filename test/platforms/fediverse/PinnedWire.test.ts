/**
 * Every call to a Mastodon server has its address checked and pinned (`PinnedWire.ts`), through
 * the publishing router against the fake: a server's name that answered an allowed address when
 * the account connected and a private one later (DNS rebinding) is refused at the next publish,
 * before anything is sent, as the target's failure.
 *
 * The server's name (`mastodon.example`) is one the system's resolver does not know: only the
 * test's resolver answers it, so a publish that reaches the fake proves the connection went to the
 * address the check approved, not to a second resolution.
 */
import { assert, describe, it } from "@effect/vitest"
import { type PlatformFailure, UrlSafety } from "@postwire/core"
import { Effect } from "effect"
import { aRouter, drive } from "../adapterConformance.ts"
import * as MastodonFake from "./MastodonFake.ts"
import { aMastodonPost, routerOptions } from "./support.ts"

/** A resolver the test moves: it answers `mastodon.example` with `answer` at the time of the call. */
const aMovableResolver = (first: ReadonlyArray<string>) => {
  let answer = first
  const asked: Array<string> = []
  const resolver: UrlSafety.Resolver["Service"] = {
    resolve: (host) =>
      host === "mastodon.example"
        ? Effect.sync(() => {
            asked.push(answer.join(","))
            return answer
          })
        : Effect.fail(new UrlSafety.ResolveError({ host }))
  }
  const answerWith = (next: ReadonlyArray<string>) => {
    answer = next
  }
  return { resolver, asked, answerWith }
}

const failureOf = (result: { readonly failure?: PlatformFailure | undefined }): PlatformFailure => {
  if (result.failure === undefined) throw new Error("expected the publish to fail")
  return result.failure
}

describe("Mastodon calls pinned to a checked address", () => {
  it.live("publishes while the server's name answers an allowed address, and refuses the next publish once it answers a private one, nothing sent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* MastodonFake.make()
        const dns = aMovableResolver(["127.0.0.1"])
        const client = yield* aRouter(routerOptions({ resolver: dns.resolver }) as never)
        const server = `http://mastodon.example:${new URL(fake.origin).port}`

        const first = yield* drive(client, aMastodonPost(fake, { caption: "Before the name moved", server }))
        assert.isDefined(first.published, JSON.stringify(first.failure))
        assert.strictEqual(fake.statuses.length, 1)
        // Each call was checked (the instance's limits, then the status).
        assert.isAtLeast(dns.asked.length, 2)

        // The name now answers an address inside Postwire's network.
        dns.answerWith(["10.0.0.7"])
        const sentBefore = fake.requests.length
        const refused = failureOf(yield* drive(client, aMastodonPost(fake, { caption: "After the name moved", server })))
        assert.strictEqual(refused.code, "platform_unavailable")
        assert.strictEqual(refused.platformCode, "server_private_address")
        assert.isFalse(refused.retryable)
        assert.isTrue(refused.notPublished)
        assert.include(JSON.stringify(refused.details), "10.0.0.7")
        assert.strictEqual(fake.requests.length, sentBefore)
        assert.strictEqual(fake.statuses.length, 1)

        // The cloud's metadata address, and a name that answers a public and a private address.
        dns.answerWith(["169.254.169.254"])
        const metadata = failureOf(yield* drive(client, aMastodonPost(fake, { caption: "Metadata", server })))
        assert.strictEqual(metadata.platformCode, "server_link_local")
        dns.answerWith(["93.184.216.34", "192.168.1.20"])
        const mixed = failureOf(yield* drive(client, aMastodonPost(fake, { caption: "Mixed", server })))
        assert.strictEqual(mixed.platformCode, "server_private_address")
        assert.strictEqual(fake.requests.length, sentBefore)
      })
    )
  )

  it.live("refuses a server whose name answers loopback when loopback is not allowed (production), nothing sent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fake = yield* MastodonFake.make()
        const dns = aMovableResolver(["127.0.0.1"])
        const client = yield* aRouter(routerOptions({ resolver: dns.resolver, allowLoopback: false }) as never)
        const server = `https://mastodon.example:${new URL(fake.origin).port}`

        const refused = failureOf(yield* drive(client, aMastodonPost(fake, { caption: "Loopback", server })))
        assert.strictEqual(refused.code, "platform_unavailable")
        assert.strictEqual(refused.platformCode, "server_loopback")
        assert.isFalse(refused.retryable)
        assert.isTrue(refused.notPublished)
        assert.strictEqual(fake.requests.length, 0)
      })
    )
  )
})
