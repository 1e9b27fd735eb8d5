/**
 * Bluesky as a plugin (wire word `atproto`, the AT Protocol network): posts as
 * `app.bsky.feed.post` records created under a key Postwire chooses first (exactly once),
 * rich-text facets, images, a video (through the video service) or a link card read from the page; replies as comments; accounts connected with
 * a handle and an app password (the session is sealed, the password is not kept).
 *
 * Settings and their environment names:
 *
 * | setting | environment | default |
 * |---|---|---|
 * | `publish.webHost` | `POSTWIRE_ATPROTO_WEB_HOST` | `https://bsky.app` (permalinks) |
 * | `publish.linkCards` | `POSTWIRE_ATPROTO_LINK_CARDS` (`0` turns reading pages off) | `1` |
 * | `publish.linkCardAllowLoopback` | `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS` | `0` |
 * | `publish.videoServiceUrl` | `POSTWIRE_ATPROTO_VIDEO_SERVICE_URL` (`none`: videos go to the PDS) | `https://video.bsky.app` |
 * | `publish.videoServiceDid` | `POSTWIRE_ATPROTO_VIDEO_SERVICE_DID` | `did:web:video.bsky.app` |
 * | `publish.pollIntervalMs` | `POSTWIRE_PLATFORM_POLL_INTERVAL_MS` | 2000 (video job checks) |
 * | `connect.serviceUrl` | `POSTWIRE_ATPROTO_SERVICE_URL` | `https://bsky.social` |
 * | `connect.plcUrl` | `POSTWIRE_ATPROTO_PLC_URL` | `https://plc.directory` (OAuth discovery) |
 *
 * @since 0.5.0
 */
import type { PlatformPlugin } from "../Plugin.ts"
import * as Reasons from "./Reasons.ts"
import { examples } from "./Examples.ts"
import { AtprotoCredentials } from "./Xrpc.ts"
import * as Atproto from "./Atproto.ts"
import * as AtprotoComments from "./AtprotoComments.ts"
import * as AtprotoConnect from "./AtprotoConnect.ts"
import * as OAuth from "./OAuth.ts"
import * as AtprotoAnalytics from "./Analytics.ts"
import { options } from "./Options.ts"
import { rules } from "./Rules.ts"
import * as Tid from "./Tid.ts"

/** A `1`/`0` switch; unset: the default. */
const flag = (value: string | undefined): boolean | undefined => (value === undefined ? undefined : value === "1" || value === "true")

/** The Bluesky plugin. */
export const atproto: PlatformPlugin<Atproto.Config, AtprotoConnect.Settings, typeof AtprotoCredentials> = {
  name: "atproto",
  displayName: rules.displayName,
  credentials: AtprotoCredentials,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  options,
  publish: {
    defaults: Atproto.defaults,
    make: (settings, wire) => Atproto.make(settings, wire),
    comments: (settings, wire) => AtprotoComments.make({ webHost: settings.webHost }, wire),
    analytics: (_settings, wire) => AtprotoAnalytics.make(wire)
  },
  analytics: AtprotoAnalytics.capabilities,
  connect: {
    defaults: AtprotoConnect.defaults,
    form: AtprotoConnect.form,
    make: (settings, wire) => AtprotoConnect.make(settings, wire),
    // The client metadata document the account's server fetches from the client id address
    // (https://atproto.com/specs/oauth, "Client ID Metadata Document"): served on an https
    // deployment that does not name a document hosted elsewhere.
    documents: {
      "client-metadata.json": (settings: AtprotoConnect.Settings, publicUrl: string) => {
        const clientId = OAuth.clientIdFor(`${publicUrl}/connect/callback/atproto`, settings.oauthClientId)
        return clientId === null || !clientId.startsWith(`${publicUrl}/`) ? undefined : OAuth.clientMetadata(publicUrl, clientId)
      }
    }
  },
  // Sessions: the access token lives about 2 hours, the refresh token about 2 months; renewed
  // halfway through the access token's life (the default policy).
  env: (read) => ({
    publish: {
      webHost: read.url("POSTWIRE_ATPROTO_WEB_HOST"),
      linkCards: flag(read.text("POSTWIRE_ATPROTO_LINK_CARDS")),
      linkCardAllowLoopback: flag(read.text("POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS")),
      videoServiceUrl: read.text("POSTWIRE_ATPROTO_VIDEO_SERVICE_URL") === "none" ? null : read.url("POSTWIRE_ATPROTO_VIDEO_SERVICE_URL"),
      videoServiceDid: read.text("POSTWIRE_ATPROTO_VIDEO_SERVICE_DID"),
      pollIntervalMs: read.pollIntervalMs
    },
    connect: { serviceUrl: read.url("POSTWIRE_ATPROTO_SERVICE_URL"), plcUrl: read.url("POSTWIRE_ATPROTO_PLC_URL"), oauthClientId: read.exactUrl("POSTWIRE_ATPROTO_OAUTH_CLIENT_ID") }
  }),
  sandbox: {
    // Sandbox sessions do not expire on the simulated platform.
    tokens: { accessMs: null, refreshMs: null },
    post: (_input, { handle, numericId, seed }) => {
      const rkey = Tid.make(Number(numericId(seed).slice(0, 16)), Number(numericId(`${seed}:clock`).slice(-3)) % 1024)
      return { id: `at://did:plc:sandbox${numericId(handle).slice(0, 16)}/${Atproto.postCollection}/${rkey}`, permalink: Atproto.permalink(Atproto.defaults.webHost, `${handle}.bsky.social`, rkey) }
    }
  }
}
