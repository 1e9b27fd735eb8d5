/**
 * LinkedIn as a plugin (wire word `professional`): members' and company pages' posts through the
 * versioned Posts, Images and Videos APIs; three-legged OAuth where the person chooses their
 * pages; comments through the Comments API; 60-day tokens refreshed where the app has
 * programmatic refresh, otherwise the account asks to be reconnected a week before they end.
 *
 * Settings (a server reads them from its environment):
 *
 * | variable | what |
 * |---|---|
 * | `POSTWIRE_LINKEDIN_CLIENT_ID`, `POSTWIRE_LINKEDIN_CLIENT_SECRET` | the app's credentials |
 * | `POSTWIRE_LINKEDIN_VERSION` | the `LinkedIn-Version` header (`YYYYMM`), default `202610` |
 * | `POSTWIRE_LINKEDIN_PAGES` | `true`: also connect the company pages the person administers |
 * | `POSTWIRE_LINKEDIN_API_URL` | the API host, default `https://api.linkedin.com` |
 * | `POSTWIRE_LINKEDIN_OAUTH_URL` | the OAuth host, default `https://www.linkedin.com/oauth/v2` |
 *
 * @since 0.5.0
 */
import { Redacted } from "effect"
import type { PlatformPlugin } from "../Plugin.ts"
import * as Reasons from "./Reasons.ts"
import { examples } from "./Examples.ts"
import { ProfessionalCredentials } from "./LinkedInCredentials.ts"
import * as LinkedIn from "./LinkedIn.ts"
import * as LinkedInAnalytics from "./Analytics.ts"
import * as LinkedInComments from "./LinkedInComments.ts"
import * as LinkedInConnect from "./LinkedInConnect.ts"
import { options } from "./Options.ts"
import { rules } from "./Rules.ts"

const day = 24 * 60 * 60 * 1000

/**
 * When a token is renewed: 53 days after it was issued (halfway would be 30). With a refresh
 * token the access token is renewed then; without one the refresh is refused and the account
 * goes `needs_reconnect` with one event, a week before the 60 days end.
 */
export const renewAfterMs = 53 * day

/** The LinkedIn plugin. */
export const linkedin: PlatformPlugin<LinkedIn.Config, LinkedInConnect.Settings, typeof ProfessionalCredentials> = {
  name: "professional",
  displayName: rules.displayName,
  credentials: ProfessionalCredentials,
  reasons: Reasons.catalogue.texts,
  examples,
  rules,
  options,
  publish: {
    defaults: LinkedIn.defaults,
    secrets: ["clientSecret"],
    make: (settings, wire) => LinkedIn.make(settings, wire),
    comments: (settings, wire, config) => LinkedInComments.make(settings, wire, config),
    analytics: (settings, wire) => LinkedInAnalytics.make(settings, wire)
  },
  connect: {
    defaults: { ...LinkedInConnect.defaults, clientId: "", clientSecret: Redacted.make("") },
    secrets: ["clientSecret"],
    make: (settings, wire) => LinkedInConnect.make(settings, wire)
  },
  env: (read) => {
    const oauth = read.url("POSTWIRE_LINKEDIN_OAUTH_URL")
    const apiUrl = read.url("POSTWIRE_LINKEDIN_API_URL")
    const version = read.text("POSTWIRE_LINKEDIN_VERSION")
    const clientId = read.text("POSTWIRE_LINKEDIN_CLIENT_ID")
    const clientSecret = read.secret("POSTWIRE_LINKEDIN_CLIENT_SECRET")
    return {
      publish: {
        apiUrl,
        version,
        tokenUrl: read.refreshUrl("POSTWIRE_LINKEDIN_REFRESH_URL") ?? (oauth === undefined ? undefined : `${oauth}/accessToken`),
        clientId,
        clientSecret,
        pollIntervalMs: read.pollIntervalMs
      },
      connect: {
        clientId,
        clientSecret,
        apiUrl,
        version,
        pages: read.text("POSTWIRE_LINKEDIN_PAGES")?.toLowerCase() === "true" ? true : undefined,
        ...(oauth === undefined
          ? {}
          : { authorizeUrl: `${oauth}/authorization`, tokenUrl: `${oauth}/accessToken`, revokeUrl: `${oauth}/revoke` })
      }
    }
  },
  tokenRenewal: { minimumAgeMs: renewAfterMs },
  capabilities: { choosesAccounts: true },
  analytics: LinkedInAnalytics.capabilities,
  sandbox: {
    tokens: { accessMs: 60 * day, refreshMs: 365 * day },
    post: (_input, { numericId, seed }) => {
      const urn = `urn:li:share:${numericId(seed)}`
      return { id: urn, permalink: LinkedIn.permalink(urn) }
    }
  }
}
