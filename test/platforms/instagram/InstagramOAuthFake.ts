/**
 * A fake of Instagram Login (Instagram API with Instagram Login; platforms-connect.md, "photo —
 * Instagram"): `/oauth/authorize` and its consent page, `POST /oauth/access_token` answering in
 * the documented `{"data": [...]}` form or unwrapped (`answerForm`), with `user_id` a long integer
 * and `permissions` a comma list (wrapped) or an array (unwrapped), `ig_exchange_token`,
 * `ig_refresh_token` (tokens at least 24 h old), and `/me` of a professional account.
 *
 * Start and stop (see `OAuthFake.ts`): `await InstagramOAuthFake.start()` / `fake.stop()`, or
 * `yield* InstagramOAuthFake.scoped()`. Point every Instagram host at `fake.url`:
 * `authorizeUrl` `${fake.url}/oauth/authorize`, `tokenUrl` `${fake.url}/oauth/access_token`,
 * `exchangeUrl` `${fake.url}/access_token`, `refreshUrl` `${fake.url}/refresh_access_token`,
 * `graphUrl` `${fake.url}/v23.0`. Routes: `authorize`, `consent`, `token`, `exchange`, `refresh`, `me`.
 */
import type { Effect, Scope } from "effect"
import { type MetaLoginKnobs, metaLoginRoutes } from "../meta/MetaLoginFake.ts"
import { listen, type OAuthFake, scopedFake } from "../fakes/OAuthFake.ts"

/** The Instagram professional account that logs in. */
export interface InstagramPerson {
  /** The app-scoped id. */
  id: string
  /** The professional account id, a long integer (beyond JavaScript's exact integers). */
  user_id: string
  username: string
  name: string
  /**
   * As Meta's Instagram Login documentation writes the values ("Business or Media_Creator",
   * https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login);
   * integrators also report the upper-case forms, which a test may set.
   */
  account_type: "Business" | "Media_Creator" | "Personal" | "BUSINESS" | "MEDIA_CREATOR" | "PERSONAL"
  profile_picture_url: string
}

/** The fake and the knobs a test turns. */
export interface InstagramOAuthFake extends OAuthFake, MetaLoginKnobs {
  person: InstagramPerson
  /** How the code exchange answers: the documented `data[]` wrapper, or unwrapped. */
  answerForm: "wrapped" | "unwrapped"
}

const knownScopes = new Set([
  "instagram_business_basic",
  "instagram_business_content_publish",
  "instagram_business_manage_comments",
  "instagram_business_manage_messages"
])

/** Starts the fake (Promise API). */
export const start = async (): Promise<InstagramOAuthFake> => {
  let fake!: InstagramOAuthFake
  await listen((base) => {
    fake = Object.assign(base, {
      appId: "990011223344",
      appSecret: "instagram-app-secret",
      declinedScopes: [],
      shortLifetimeSec: 3600,
      longLifetimeSec: 5_184_000,
      codeLifetimeSec: 3600,
      answerForm: "wrapped" as const,
      person: {
        id: "8871234567890123",
        user_id: "17841400123456789",
        username: "warung.sari",
        name: "Warung Sari",
        account_type: "Business" as const,
        profile_picture_url: "https://scontent.cdninstagram.example/warung.jpg"
      }
    })
    return metaLoginRoutes(fake, {
      platformName: "Instagram",
      knownScopes,
      exchangeGrant: "ig_exchange_token",
      refreshGrant: "ig_refresh_token",
      personName: () => fake.person.username,
      tokenAnswer: (token) => {
        const permissions = token.scopes
        return fake.answerForm === "wrapped"
          ? `{"data":[{"access_token":"${token.token}","user_id":${fake.person.user_id},"permissions":"${permissions.join(",")}"}]}`
          : `{"access_token":"${token.token}","user_id":${fake.person.user_id},"permissions":${JSON.stringify(permissions)}}`
      },
      me: (fields) => {
        const out: Record<string, unknown> = {}
        for (const f of fields) if (f in fake.person) out[f] = fake.person[f as keyof InstagramPerson]
        return out
      }
    })
  })
  return fake
}

/** Starts the fake for the length of a scope (Effect API). */
export const scoped = (): Effect.Effect<InstagramOAuthFake, never, Scope.Scope> => scopedFake(start)
