/**
 * Mastodon as a plugin (wire word `fediverse`, for Mastodon and the servers that speak its API):
 * the person's server typed on the connect page, an app registered per server, OAuth with
 * tokens that do not expire, media uploads polled until processed, statuses sent with an
 * `Idempotency-Key`, limits read from each server, replies as comments.
 *
 * Settings and their environment names:
 *
 * | setting | environment | default |
 * |---|---|---|
 * | connect `clientName` | `POSTWIRE_FEDIVERSE_CLIENT_NAME` | `Postwire` |
 * | connect `website` | `POSTWIRE_FEDIVERSE_WEBSITE` | (none) |
 * | publish `pollIntervalMs` | `POSTWIRE_PLATFORM_POLL_INTERVAL_MS` | 2000 |
 * | `allowLoopback` (connect and publish) | `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS` (`1`, the webhooks' switch; or `POSTWIRE_UNSAFE_FEDIVERSE_ALLOW_HTTP=1`) | off: only `https://` servers on public addresses |
 *
 * Every call to a server (connect, publish, comments, analytics) goes through `PinnedWire.ts`:
 * the server's name is resolved and checked before each call and the connection made to the
 * address that was checked, so a name that turns private later (DNS rebinding) is refused.
 *
 * No app credentials are configured: each server gets its own app at the first connect.
 *
 * @since 0.5.0
 */
import type { UrlSafety } from "@postwire/core"
import type { Wire } from "../internal/Wire.ts"
import type { EnvReader, PlatformPlugin } from "../Plugin.ts"
import { examples } from "./Examples.ts"
import { FediverseCredentials } from "./FediverseCredentials.ts"
import * as Reasons from "./Reasons.ts"
import * as Fediverse from "./Fediverse.ts"
import * as FediverseAnalytics from "./Analytics.ts"
import * as FediverseComments from "./FediverseComments.ts"
import * as FediverseConnect from "./FediverseConnect.ts"
import * as Options from "./Options.ts"
import * as PinnedWire from "./PinnedWire.ts"
import * as ServerAddress from "./ServerAddress.ts"
import { rules } from "./Rules.ts"

/** Whether the loopback switch is on (`POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1`, or the older `POSTWIRE_UNSAFE_FEDIVERSE_ALLOW_HTTP=1`). */
const allowLoopback = (read: EnvReader): true | undefined =>
  read.text("POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS") === "1" || read.text("POSTWIRE_UNSAFE_FEDIVERSE_ALLOW_HTTP") === "1" ? true : undefined

/** Every call to a server through the pinned wire: its address checked and connected to as checked (`PinnedWire.ts`). */
const pinned = (settings: { readonly allowLoopback?: boolean | undefined; readonly resolver?: UrlSafety.Resolver["Service"] | undefined }, wire: Wire) =>
  PinnedWire.make(wire, { allowLoopback: settings.allowLoopback === true, resolver: settings.resolver ?? ServerAddress.systemResolver })

/** The Mastodon plugin. */
export const fediverse: PlatformPlugin<Fediverse.Config, FediverseConnect.Settings, typeof FediverseCredentials> = {
  name: "fediverse",
  displayName: rules.displayName,
  credentials: FediverseCredentials,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  options: Options.options,
  publish: {
    defaults: Fediverse.defaults,
    make: (settings, wire) => Fediverse.make(settings, pinned(settings, wire)),
    comments: (settings, wire) => FediverseComments.make(pinned(settings, wire)),
    analytics: (settings, wire) => FediverseAnalytics.make(pinned(settings, wire))
  },
  analytics: FediverseAnalytics.capabilities,
  connect: {
    defaults: FediverseConnect.defaults,
    form: FediverseConnect.form,
    make: (settings, wire) => FediverseConnect.make(settings, pinned(settings, wire))
  },
  env: (read) => ({
    // Development and tests only: reach a server on loopback (never in production). The one
    // loopback switch of webhooks and media imports; the older Mastodon-only name still works.
    publish: { pollIntervalMs: read.pollIntervalMs, allowLoopback: allowLoopback(read) },
    connect: {
      clientName: read.text("POSTWIRE_FEDIVERSE_CLIENT_NAME"),
      website: read.url("POSTWIRE_FEDIVERSE_WEBSITE"),
      allowLoopback: allowLoopback(read)
    }
  }),
  sandbox: {
    tokens: { accessMs: null, refreshMs: null },
    post: (_input, { handle, numericId, seed }) => {
      const [name, host] = handle.includes("@") ? handle.split("@", 2) : [handle, "mastodon.social"]
      const id = numericId(seed)
      return { id, permalink: `https://${host}/@${name}/${id}` }
    }
  }
}
