/**
 * A real server against the Google fake, with a YouTube channel connected and a Short uploaded to
 * the server's media: the set-up of the YouTube suites that go through `POST /v1/posts`.
 */
import { expect } from "vitest"
import { anMp4 } from "../../support/Media.ts"
import { call } from "../../support/Http.ts"
import type { TestServer } from "../../support/TestServer.ts"
import type { YouTubeFake } from "./YouTubeFake.ts"

/** The server's environment for the fake: its addresses, its app, `dailyUploads` a day for the project. */
export const environment = (fake: YouTubeFake, dailyUploads: number) =>
  ({
    POSTWIRE_YOUTUBE_API_URL: `${fake.url}/youtube/v3`,
    POSTWIRE_YOUTUBE_UPLOAD_URL: `${fake.url}/upload/youtube/v3`,
    POSTWIRE_YOUTUBE_TOKEN_URL: `${fake.url}/token`,
    POSTWIRE_YOUTUBE_CLIENT_ID: fake.clientId,
    POSTWIRE_YOUTUBE_CLIENT_SECRET: fake.clientSecret,
    POSTWIRE_YOUTUBE_DAILY_UPLOADS: String(dailyUploads),
    POSTWIRE_PLATFORM_POLL_INTERVAL_MS: "1",
    POSTWIRE_PLATFORM_RETRY_DELAY_MS: "5",
    POSTWIRE_PLATFORM_TIMEOUT_MS: "5000",
    POSTWIRE_PUBLISH_POLL_MS: "20",
    POSTWIRE_COMMENT_POLL_MS: "50",
    POSTWIRE_RATE_LIMIT_PER_KEY: "100000"
  }) as const

/** Connects the fake's first channel to the server, makes a live key, and uploads a 50-second vertical video (a Short). */
export const aConnectedChannel = async (server: TestServer, fake: YouTubeFake) => {
  const liveKey = (
    await server.admin<{ key: string }>(`/workspaces/${server.workspaceId}/keys`, {
      kind: "live",
      scopes: ["posts:read", "posts:write", "comments:write"]
    })
  ).key
  const { access, refresh } = fake.grant()
  const channel = fake.channels[0]!
  const account = await server.admin(`/workspaces/${server.workspaceId}/accounts`, {
    profile_id: server.profileId,
    platform: "video",
    sandbox: false,
    handle: "mayabakes",
    credentials: { access_token: access, refresh_token: refresh, channel_id: channel.id, uploads_playlist_id: channel.uploads },
    external_id: channel.id
  })
  const uploaded = await call(server.baseUrl, "POST", "/v1/media", {
    key: liveKey,
    body: { data: Buffer.from(anMp4({ durationSeconds: 50, width: 1080, height: 1920 })).toString("base64") }
  })
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201)
  return { liveKey, accountId: account.id, short: uploaded.body.id as string }
}

/** A post of the Short to the channel, approval skipped; `extra` adds fields (`scheduled_at`). */
export const aShortPost = (server: TestServer, accountId: string, short: string, caption: string, extra: Record<string, unknown> = {}) => ({
  profile_id: server.profileId,
  caption,
  media: [short],
  targets: [{ account_id: accountId, video: { made_for_kids: false, privacy_status: "unlisted" } }],
  approval: { mode: "none" },
  ...extra
})
