/**
 * Stored records for tests that call core, adapters or views directly: each builder returns a
 * complete, valid record and takes only the fields a test cares about. (Black-box tests build
 * through the HTTP API instead: see `Builders.ts`.)
 */
import { Ids as Id } from "@postwire/domain"
import type { AccountRecord, PostRecord, TargetRecord } from "@postwire/core"

let counter = 0

/** A fresh id with a kind prefix, shaped like the service's own. */
export const anId = (prefix: string) => `${prefix}_01JD8XK2M3N4P5Q6R7S8T9${String(++counter).padStart(4, "0")}`

/** A fixed instant to build times from. */
export const t0 = 1_795_000_000_000

const workspaceId = Id.unchecked("workspace", "ws_01JD8XK2M3N4P5Q6R7S8T9V0W1")
const profileId = Id.unchecked("profile", "prof_01JD8XK2M3N4P5Q6R7S8T9V0W1")

/** A connected, non-sandbox photo account. */
export const anAccountRecord = (overrides: Partial<AccountRecord> = {}): AccountRecord => ({
  id: Id.unchecked("account", anId("acct")),
  workspaceId,
  profileId,
  platform: "photo",
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

/** A post being published now, without media. */
export const aPostRecord = (overrides: Partial<PostRecord> = {}): PostRecord => ({
  id: Id.unchecked("post", anId("post")),
  workspaceId,
  profileId,
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

/** A photo target being published, never attempted, without consent, lease or platform state. */
export const aTargetRecord = (overrides: Partial<TargetRecord> = {}): TargetRecord => ({
  id: Id.unchecked("target", anId("tgt")),
  workspaceId,
  postId: Id.unchecked("post", "post_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  accountId: Id.unchecked("account", "acct_01JD8XK2M3N4P5Q6R7S8T9V0W1"),
  platform: "photo",
  status: "publishing",
  options: {},
  consent: null,
  permalink: null,
  publishedAt: null,
  error: null,
  attempts: 0,
  platformState: null,
  dueAt: null,
  leaseOwner: null,
  leaseUntil: null,
  updatedAt: t0,
  ...overrides
})
