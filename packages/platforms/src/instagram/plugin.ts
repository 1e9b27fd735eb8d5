/**
 * Instagram as a plugin (wire word `photo`): container publishing on the Instagram Graph API,
 * Instagram Login connect, comments, 60-day tokens refreshed after at least 24 hours.
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
import * as InstagramAnalytics from "./Analytics.ts"
import * as Instagram from "./Instagram.ts"
import * as InstagramComments from "./InstagramComments.ts"
import * as InstagramConnect from "./InstagramConnect.ts"
import { kindOf, options } from "./Options.ts"
import { rules } from "./Rules.ts"

const day = 24 * 60 * 60 * 1000

/** Whether Graph calls carry `appsecret_proof`: `on`, `off`, `auto` (default: only on graph.facebook.com). */
const appSecretProofName = "POSTWIRE_INSTAGRAM_APPSECRET_PROOF"

/** The Instagram plugin. */
export const instagram: PlatformPlugin<Instagram.Config, InstagramConnect.Settings, typeof LongLivedToken> = {
  name: "photo",
  displayName: rules.displayName,
  credentials: LongLivedToken,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  options,
  publish: {
    defaults: Instagram.defaults,
    secrets: ["appSecret"],
    make: (settings, wire) => Instagram.make(settings, wire),
    comments: (settings, wire, config) => {
      const graph = GraphApi.make({ wire, baseUrl: settings.baseUrl, platform: "photo", appSecret: Instagram.proofSecret(settings) })
      return InstagramComments.make({
        graph,
        config,
        openSession: Sessions.longLived({
          graph,
          wire,
          refreshUrl: settings.refreshUrl,
          refreshWithinMs: settings.refreshWithinMs,
          refreshGrantType: "ig_refresh_token"
        })
      })
    },
    analytics: InstagramAnalytics.fromSettings
  },
  connect: {
    defaults: { ...InstagramConnect.defaults, appId: "", appSecret: Redacted.make("") },
    secrets: ["appSecret"],
    make: (settings, wire) => InstagramConnect.make(settings, wire),
    deauthorization: (settings) => ({ secret: settings.appSecret, name: InstagramConnect.settingNames.appSecret })
  },
  env: (read) => ({
    publish: {
      baseUrl: read.url("POSTWIRE_INSTAGRAM_BASE_URL"),
      refreshUrl: read.refreshUrl("POSTWIRE_INSTAGRAM_REFRESH_URL"),
      appSecret: read.secret("POSTWIRE_INSTAGRAM_APP_SECRET"),
      appSecretProof: Instagram.parseAppSecretProof(appSecretProofName, read.text(appSecretProofName)),
      pollIntervalMs: read.pollIntervalMs
    },
    connect: {
      appId: read.text("POSTWIRE_INSTAGRAM_APP_ID"),
      appSecret: read.secret("POSTWIRE_INSTAGRAM_APP_SECRET"),
      authorizeUrl: read.exactUrl("POSTWIRE_INSTAGRAM_AUTHORIZE_URL"),
      tokenUrl: read.exactUrl("POSTWIRE_INSTAGRAM_TOKEN_URL"),
      exchangeUrl: read.exactUrl("POSTWIRE_INSTAGRAM_EXCHANGE_URL"),
      // Refreshing off (`none`) leaves the connector's default: it still exchanges tokens.
      refreshUrl: read.refreshUrl("POSTWIRE_INSTAGRAM_REFRESH_URL") ?? undefined,
      graphUrl: read.url("POSTWIRE_INSTAGRAM_BASE_URL"),
      appSecretProof: Instagram.parseAppSecretProof(appSecretProofName, read.text(appSecretProofName))
    }
  }),
  tokenRenewal: { minimumAgeMs: MetaToken.minimumAgeMs },
  analytics: InstagramAnalytics.capabilities,
  sandbox: {
    tokens: { accessMs: 60 * day, refreshMs: null },
    post: (input, { handle, numericId, shortcode, seed }) => {
      const kind = kindOf(input.target.options[input.account.platform], input.media.map((m) => m.record))
      return {
        id: numericId(seed),
        permalink:
          kind === "story"
            ? `https://www.instagram.com/stories/${handle}/${numericId(seed)}/`
            : `https://www.instagram.com/${kind === "reel" ? "reel" : "p"}/${shortcode(seed)}/`
      }
    }
  }
}
