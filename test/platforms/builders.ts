/**
 * Small named builders for publishing fixtures: an account, a post, a target, media, and the
 * `PublishInput` that puts them together.
 */
import type { AccountRecord, MediaRecord, PostRecord, PublishInput, PublishMedia, TargetRecord } from "@postwire/core"
import type { Platform, Post } from "@postwire/domain"
import { Effect } from "effect"
import { Ids as Id } from "@postwire/domain"

let counter = 0
const anId = (prefix: string) => `${prefix}_01JD8XK2M3N4P5Q6R7S8T9${String(++counter).padStart(4, "0")}`

/** A fixed instant to build times from. */
export const t0 = 1_795_000_000_000

export const anAccount = (platform: Platform, overrides: Partial<AccountRecord> = {}): AccountRecord => ({
  id: Id.unchecked("account", anId("acct")),
  workspaceId: Id.unchecked("workspace", "ws_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  profileId: Id.unchecked("profile", "prof_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  platform,
  handle: "@maya.bakes",
  sandbox: false,
  status: "connected",
  dailyQuota: null,
  simulate: null,
  credentials: null,
  externalId: null,
  createdAt: t0,
  ...overrides
})

/** A sandbox account of the simulated platform. */
export const aSandboxAccount = (platform: Platform, overrides: Partial<AccountRecord> = {}): AccountRecord =>
  anAccount(platform, { sandbox: true, ...overrides })

export const aPost = (overrides: Partial<PostRecord> = {}): PostRecord => ({
  id: Id.unchecked("post", anId("post")),
  workspaceId: Id.unchecked("workspace", "ws_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  profileId: Id.unchecked("profile", "prof_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  caption: `Sourdough day ${counter}: crumb shot at the end`,
  media: [],
  scheduledAt: null,
  aiGenerated: false,
  approvalMode: "none",
  notify: null,
  status: "publishing",
  publishAt: t0,
  createdAt: t0,
  updatedAt: t0,
  version: 1,
  ...overrides
})

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
  return {
    id: Id.unchecked("target", anId("tgt")),
    workspaceId: account.workspaceId,
    postId: Id.unchecked("post", "post_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
    accountId: account.id,
    platform: account.platform,
    status: "publishing",
    options: {},
    consent:
      consent === undefined || consent === null ? null : { consent, givenBy: "key:key_01JD8XK2", givenAt: t0 },
    permalink: null,
    publishedAt: null,
    error: null,
    attempts: 0,
    platformState: null,
    dueAt: null,
    leaseOwner: null,
    leaseUntil: null,
    updatedAt: t0,
    ...rest
  }
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
