/**
 * A fake of Threads' OAuth (platforms-connect.md, "textpost — Threads"): `/oauth/authorize` and
 * its consent page, `POST /oauth/access_token` answering `{access_token, user_id}` (a long
 * integer), `th_exchange_token`, `th_refresh_token` (tokens at least 24 h old), and `/me`.
 *
 * Start and stop (see `OAuthFake.ts`): `await ThreadsOAuthFake.start()` / `fake.stop()`, or
 * `yield* ThreadsOAuthFake.scoped()`. Point every Threads host at `fake.url`: `authorizeUrl`
 * `${fake.url}/oauth/authorize`, `tokenUrl` `${fake.url}/oauth/access_token`, `exchangeUrl`
 * `${fake.url}/access_token`, `refreshUrl` `${fake.url}/refresh_access_token`, `graphUrl`
 * `${fake.url}/v1.0`. Routes: `authorize`, `consent`, `token`, `exchange`, `refresh`, `me`.
 */
import type { Effect, Scope } from "effect"
import { type MetaLoginKnobs, metaLoginRoutes } from "../meta/MetaLoginFake.ts"
import { listen, type OAuthFake, scopedFake } from "../fakes/OAuthFake.ts"

/** The Threads user who logs in. */
export interface ThreadsPerson {
  /** A long integer (beyond JavaScript's exact integers). */
  id: string
  username: string
  name: string
  threads_profile_picture_url: string
}

/** The fake and the knobs a test turns. */
export interface ThreadsOAuthFake extends OAuthFake, MetaLoginKnobs {
  person: ThreadsPerson
}

const knownScopes = new Set([
  "threads_basic",
  "threads_content_publish",
  "threads_manage_replies",
  "threads_read_replies",
  "threads_manage_insights",
  "threads_delete"
])

/** Starts the fake (Promise API). */
export const start = async (): Promise<ThreadsOAuthFake> => {
  let fake!: ThreadsOAuthFake
  await listen((base) => {
    fake = Object.assign(base, {
      appId: "1122334455667788",
      appSecret: "threads-app-secret",
      declinedScopes: [],
      shortLifetimeSec: 3600,
      longLifetimeSec: 5_184_000,
      codeLifetimeSec: 3600,
      person: {
        id: "25012345678901234",
        username: "sari.writes",
        name: "Sari Writes",
        threads_profile_picture_url: "https://scontent.cdninstagram.example/sari.jpg"
      }
    })
    return metaLoginRoutes(fake, {
      platformName: "Threads",
      knownScopes,
      exchangeGrant: "th_exchange_token",
      refreshGrant: "th_refresh_token",
      personName: () => fake.person.username,
      tokenAnswer: (token) => `{"access_token":"${token.token}","user_id":${fake.person.id}}`,
      me: (fields) => {
        const out: Record<string, unknown> = {}
        for (const f of fields) if (f in fake.person) out[f] = fake.person[f as keyof ThreadsPerson]
        return out
      }
    })
  })
  return fake
}

/** Starts the fake for the length of a scope (Effect API). */
export const scoped = (): Effect.Effect<ThreadsOAuthFake, never, Scope.Scope> => scopedFake(start)
