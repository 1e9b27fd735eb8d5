/**
 * Threads as a plugin (wire word `textpost`): container publishing on the Threads API, Threads
 * Login connect, replies as comments, 60-day tokens refreshed after at least 24 hours.
 *
 * @since 0.4.0
 */
import { Redacted } from "effect"
import * as GraphApi from "../meta/GraphApi.ts"
import * as MetaToken from "../meta/MetaToken.ts"
import * as Sessions from "../meta/Sessions.ts"
import type { PlatformPlugin } from "../Plugin.ts"
import * as Reasons from "./Reasons.ts"
import { examples } from "./Examples.ts"
import { LongLivedToken } from "../meta/Credentials.ts"
import { rules } from "./Rules.ts"
import * as ThreadsAnalytics from "./Analytics.ts"
import * as Threads from "./Threads.ts"
import * as ThreadsComments from "./ThreadsComments.ts"
import * as ThreadsConnect from "./ThreadsConnect.ts"

const day = 24 * 60 * 60 * 1000

/** The Threads plugin. */
export const threads: PlatformPlugin<Threads.Config, ThreadsConnect.Settings, typeof LongLivedToken> = {
  name: "textpost",
  displayName: rules.displayName,
  credentials: LongLivedToken,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  publish: {
    defaults: Threads.defaults,
    secrets: ["appSecret"],
    make: (settings, wire) => Threads.make(settings, wire),
    comments: (settings, wire, config) => {
      const graph = GraphApi.make({ wire, baseUrl: settings.baseUrl, platform: "textpost", appSecret: Threads.proofSecret(settings) })
      return ThreadsComments.make({
        graph,
        config,
        openSession: Sessions.longLived({
          graph,
          wire,
          refreshUrl: settings.refreshUrl,
          refreshWithinMs: settings.refreshWithinMs,
          refreshGrantType: "th_refresh_token"
        })
      })
    },
    analytics: ThreadsAnalytics.fromSettings
  },
  connect: {
    defaults: { ...ThreadsConnect.defaults, appId: "", appSecret: Redacted.make("") },
    secrets: ["appSecret"],
    make: (settings, wire) => ThreadsConnect.make(settings, wire),
    deauthorization: (settings) => ({ secret: settings.appSecret, name: ThreadsConnect.settingNames.appSecret })
  },
  env: (read) => ({
    publish: {
      baseUrl: read.url("POSTWIRE_THREADS_BASE_URL"),
      refreshUrl: read.refreshUrl("POSTWIRE_THREADS_REFRESH_URL"),
      appSecret: read.secret("POSTWIRE_THREADS_APP_SECRET"),
      // `appsecret_proof` on graph.threads.net: off unless set to `true` (see Threads.Config).
      appSecretProof: read.text("POSTWIRE_THREADS_APPSECRET_PROOF")?.trim().toLowerCase() === "true" ? true : undefined,
      pollIntervalMs: read.pollIntervalMs
    },
    connect: {
      appId: read.text("POSTWIRE_THREADS_APP_ID"),
      appSecret: read.secret("POSTWIRE_THREADS_APP_SECRET"),
      authorizeUrl: read.exactUrl("POSTWIRE_THREADS_AUTHORIZE_URL"),
      tokenUrl: read.exactUrl("POSTWIRE_THREADS_TOKEN_URL"),
      exchangeUrl: read.exactUrl("POSTWIRE_THREADS_EXCHANGE_URL"),
      // Refreshing off (`none`) leaves the connector's default: it still exchanges tokens.
      refreshUrl: read.refreshUrl("POSTWIRE_THREADS_REFRESH_URL") ?? undefined,
      graphUrl: read.url("POSTWIRE_THREADS_BASE_URL"),
      appSecretProof: read.text("POSTWIRE_THREADS_APPSECRET_PROOF")?.trim().toLowerCase() === "true" ? true : undefined
    }
  }),
  tokenRenewal: { minimumAgeMs: MetaToken.minimumAgeMs },
  analytics: ThreadsAnalytics.capabilities,
  sandbox: {
    tokens: { accessMs: 60 * day, refreshMs: null },
    post: (_input, { handle, numericId, shortcode, seed }) => ({
      id: numericId(seed),
      permalink: `https://www.threads.net/@${handle}/post/${shortcode(seed)}`
    })
  }
}
