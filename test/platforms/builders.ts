/**
 * Small named builders for publishing fixtures: an account, a post, a target, media, and the
 * `PublishInput` that puts them together.
 */
import { Ids as Id } from "@postwire/domain"
import type { AccountRecord, MediaRecord, PostRecord, PublishInput, PublishMedia, TargetRecord } from "@postwire/core"
import type { Platform, Post } from "@postwire/domain"
import { Effect } from "effect"
import { anAccountRecord, anId, aPostRecord, aTargetRecord, t0 } from "../support/Records.ts"

export { t0 } from "../support/Records.ts"

export const anAccount = (platform: Platform, overrides: Partial<AccountRecord> = {}): AccountRecord =>
  anAccountRecord({ platform, ...overrides })

/** A sandbox account of the simulated platform. */
export const aSandboxAccount = (platform: Platform, overrides: Partial<AccountRecord> = {}): AccountRecord =>
  anAccount(platform, { sandbox: true, ...overrides })

export const aPost = (overrides: Partial<PostRecord> = {}): PostRecord => aPostRecord(overrides)

/** Consent as the approval page records it. */
export const aConsent = (overrides: Partial<Post.Consent> = {}): Post.Consent => ({
  privacy_level: "PUBLIC_TO_EVERYONE",
  music_usage_confirmed: true,
  ...overrides
})

export const aTarget = (
  account: AccountRecord,
  overrides: Partial<Omit<TargetRecord, "consent">> & { readonly consent?: Post.Consent | null } = {}
): TargetRecord => {
  const { consent, ...rest } = overrides
  return aTargetRecord({
    workspaceId: account.workspaceId,
    accountId: account.id,
    platform: account.platform,
    consent: consent === undefined || consent === null ? null : { consent, givenBy: "key:key_01JD8XK2", givenAt: t0 },
    ...rest
  })
}

const aMediaRecord = (overrides: Partial<MediaRecord>): MediaRecord => ({
  id: Id.unchecked("media", anId("med")),
  workspaceId: Id.unchecked("workspace", "ws_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  kind: "image",
  mime: "image/jpeg",
  sizeBytes: 200_000,
  filename: null,
  width: 1080,
  height: 1350,
  durationSeconds: null,
  blobKey: "blob",
  sha256: "0".repeat(64),
  createdAt: t0,
  ...overrides
})

/** A video a platform can fetch from a public address. */
export const aVideo = (overrides: Partial<MediaRecord> = {}): PublishMedia => {
  const record = aMediaRecord({ kind: "video", mime: "video/mp4", width: 1080, height: 1920, durationSeconds: 42, ...overrides })
  return { record, url: `https://media.postwire.test/${record.id}.mp4`, read: Effect.succeed(new Uint8Array(16)) }
}

/** An image a platform can fetch from a public address. */
export const anImage = (overrides: Partial<MediaRecord> = {}): PublishMedia => {
  const record = aMediaRecord(overrides)
  return { record, url: `https://media.postwire.test/${record.id}.jpg`, read: Effect.succeed(new Uint8Array(16)) }
}

/** Everything one publish step needs. */
export const aPublishInput = (options: {
  readonly account: AccountRecord
  readonly target?: TargetRecord
  readonly post?: PostRecord
  readonly media?: ReadonlyArray<PublishMedia>
  readonly state?: unknown
}): PublishInput => ({
  account: options.account,
  target: options.target ?? aTarget(options.account),
  post: options.post ?? aPost(),
  media: options.media ?? [anImage()],
  state: options.state ?? null
})
