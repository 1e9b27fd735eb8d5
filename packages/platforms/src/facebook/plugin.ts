/**
 * Facebook Pages as a plugin (wire word `pages`): Page posts, photos and reels, Facebook Login
 * connect where the person chooses their Pages, comments; Page tokens do not expire.
 *
 * @since 0.4.0
 */
import { Redacted } from "effect"
import * as GraphApi from "../meta/GraphApi.ts"
import * as Sessions from "../meta/Sessions.ts"
import type { PlatformPlugin } from "../Plugin.ts"
import * as Reasons from "./Reasons.ts"
import { examples } from "./Examples.ts"
import { PagesCredentials } from "./Credentials.ts"
import * as FacebookAnalytics from "./Analytics.ts"
import * as FacebookComments from "./FacebookComments.ts"
import * as FacebookConnect from "./FacebookConnect.ts"
import * as FacebookPages from "./FacebookPages.ts"
import * as PagePicker from "./PagePicker.ts"
import { isReel, rules } from "./Rules.ts"

/** The Facebook Pages plugin. */
export const facebook: PlatformPlugin<FacebookPages.Config, FacebookConnect.Settings, typeof PagesCredentials> = {
  name: "pages",
  displayName: rules.displayName,
  credentials: PagesCredentials,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  publish: {
    defaults: FacebookPages.defaults,
    secrets: ["appSecret"],
    make: (settings, wire) => FacebookPages.make(settings, wire),
    comments: (settings, wire, config) => {
      const graph = GraphApi.make({ wire, baseUrl: settings.baseUrl, platform: "pages", appSecret: settings.appSecret })
      return FacebookComments.make({ graph, config, openSession: Sessions.page(graph) })
    },
    analytics: FacebookAnalytics.fromSettings
  },
  connect: {
    defaults: { ...FacebookConnect.defaults, appId: "", appSecret: Redacted.make("") },
    secrets: ["appSecret"],
    make: (settings, wire) => FacebookConnect.make(settings, wire),
    chooser: PagePicker.chooser,
    deauthorization: (settings) => ({ secret: settings.appSecret, name: FacebookConnect.settingNames.appSecret })
  },
  env: (read) => ({
    publish: {
      baseUrl: read.url("POSTWIRE_FACEBOOK_BASE_URL"),
      // One Meta app publishes and connects: either name sets its secret.
      appSecret: read.secret("POSTWIRE_FACEBOOK_APP_SECRET", "POSTWIRE_META_APP_SECRET"),
      pollIntervalMs: read.pollIntervalMs
    },
    connect: {
      appId: read.text("POSTWIRE_META_APP_ID"),
      appSecret: read.secret("POSTWIRE_META_APP_SECRET", "POSTWIRE_FACEBOOK_APP_SECRET"),
      authorizeUrl: read.exactUrl("POSTWIRE_FACEBOOK_AUTHORIZE_URL"),
      graphUrl: read.url("POSTWIRE_FACEBOOK_BASE_URL"),
      // Apps of the "Facebook Login for Business" type log in with a saved configuration.
      configId: read.text("POSTWIRE_FACEBOOK_CONFIG_ID")
    }
  }),
  capabilities: { choosesAccounts: true },
  analytics: FacebookAnalytics.capabilities,
  sandbox: {
    tokens: { accessMs: null, refreshMs: null },
    post: (input, { numericId, seed }) => {
      const page = input.account.externalId ?? numericId(input.account.id)
      const id = numericId(seed)
      const video = input.media.find((m) => m.record.kind === "video")
      return {
        id: `${page}_${id}`,
        permalink:
          video === undefined
            ? `https://www.facebook.com/${page}/posts/${id}/`
            : isReel(video.record)
              ? `https://www.facebook.com/reel/${id}/`
              : `https://www.facebook.com/${page}/videos/${id}/`
      }
    }
  }
}
