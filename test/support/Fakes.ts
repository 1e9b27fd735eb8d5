/**
 * The four platforms' fake authorization servers, started together, and the server settings
 * that point Postwire's connect at them (as an operator's environment would).
 */
import * as FacebookOAuthFake from "../platforms/facebook/FacebookOAuthFake.ts"
import * as InstagramOAuthFake from "../platforms/instagram/InstagramOAuthFake.ts"
import * as ThreadsOAuthFake from "../platforms/threads/ThreadsOAuthFake.ts"
import * as TikTokOAuthFake from "../platforms/tiktok/TikTokOAuthFake.ts"

/** The running fakes. */
export interface PlatformFakes {
  readonly shortvideo: TikTokOAuthFake.TikTokOAuthFake
  readonly photo: InstagramOAuthFake.InstagramOAuthFake
  readonly pages: FacebookOAuthFake.FacebookOAuthFake
  readonly textpost: ThreadsOAuthFake.ThreadsOAuthFake
  /** The environment that points the server's connect at the fakes. */
  readonly env: Record<string, string>
  /** Registers the server's callback addresses with every fake app. */
  readonly register: (publicUrl: string) => void
  readonly stop: () => Promise<void>
}

/** Starts the four fakes. */
export const platformFakes = async (): Promise<PlatformFakes> => {
  const [shortvideo, photo, pages, textpost] = await Promise.all([
    TikTokOAuthFake.start(),
    InstagramOAuthFake.start(),
    FacebookOAuthFake.start(),
    ThreadsOAuthFake.start()
  ])
  const env = {
    POSTWIRE_TIKTOK_CLIENT_KEY: shortvideo.clientKey,
    POSTWIRE_TIKTOK_CLIENT_SECRET: shortvideo.clientSecret,
    POSTWIRE_TIKTOK_AUTHORIZE_URL: `${shortvideo.url}/v2/auth/authorize/`,
    POSTWIRE_TIKTOK_BASE_URL: shortvideo.url,
    POSTWIRE_INSTAGRAM_APP_ID: photo.appId,
    POSTWIRE_INSTAGRAM_APP_SECRET: photo.appSecret,
    POSTWIRE_INSTAGRAM_AUTHORIZE_URL: `${photo.url}/oauth/authorize`,
    POSTWIRE_INSTAGRAM_TOKEN_URL: `${photo.url}/oauth/access_token`,
    POSTWIRE_INSTAGRAM_EXCHANGE_URL: `${photo.url}/access_token`,
    POSTWIRE_INSTAGRAM_REFRESH_URL: `${photo.url}/refresh_access_token`,
    POSTWIRE_INSTAGRAM_BASE_URL: `${photo.url}/v23.0`,
    POSTWIRE_META_APP_ID: pages.appId,
    POSTWIRE_META_APP_SECRET: pages.appSecret,
    POSTWIRE_FACEBOOK_AUTHORIZE_URL: `${pages.url}/v23.0/dialog/oauth`,
    POSTWIRE_FACEBOOK_BASE_URL: `${pages.url}/v23.0`,
    POSTWIRE_THREADS_APP_ID: textpost.appId,
    POSTWIRE_THREADS_APP_SECRET: textpost.appSecret,
    POSTWIRE_THREADS_AUTHORIZE_URL: `${textpost.url}/oauth/authorize`,
    POSTWIRE_THREADS_TOKEN_URL: `${textpost.url}/oauth/access_token`,
    POSTWIRE_THREADS_EXCHANGE_URL: `${textpost.url}/access_token`,
    POSTWIRE_THREADS_REFRESH_URL: `${textpost.url}/refresh_access_token`,
    POSTWIRE_THREADS_BASE_URL: `${textpost.url}/v1.0`
  }
  return {
    shortvideo,
    photo,
    pages,
    textpost,
    env,
    register: (publicUrl) => {
      for (const [platform, fake] of Object.entries({ shortvideo, photo, pages, textpost })) {
        fake.redirectUris.push(`${publicUrl}/connect/callback/${platform}`)
      }
    },
    stop: async () => {
      await Promise.all([shortvideo.stop(), photo.stop(), pages.stop(), textpost.stop()])
    }
  }
}
