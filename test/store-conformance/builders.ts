/**
 * Small named builders for store fixtures: each returns a complete, valid record with unique
 * ids, and takes only the fields a test cares about.
 */
import { aTargetRecord } from "../support/Records.ts"
import type {
  AccountRecord,
  ApiKeyRecord,
  ApprovalRecord,
  MediaRecord,
  OutboxEvent,
  PostAggregate,
  PostRecord,
  ProfileRecord,
  TargetRecord,
  WorkspaceRecord
} from "@postwire/core"
import { Store } from "@postwire/core"
import { Ids } from "@postwire/domain"
import { Effect } from "effect"

// Unique across runs too, so a persistent database never sees an id twice.
const run = Math.random().toString(36).slice(2, 8)
let counter = 0

/** A fresh id with a kind prefix; later ids sort after earlier ones. */
export const anId = (prefix: string): string => `${prefix}_${run}${String(++counter).padStart(6, "0")}`

/** A fresh id of a kind, branded: `newId("post")` is a `PostId`. */
export const newId = <K extends Ids.IdKind>(kind: K): Ids.IdOf<K> => Ids.unchecked(kind, anId(Ids.prefixes[kind].slice(0, -1)))

/** A fixed instant (2025-01-01T00:00:00Z) to build times from. */
export const t0 = 1_735_689_600_000

export const aWorkspace = (overrides: Partial<WorkspaceRecord> = {}): WorkspaceRecord => ({
  id: newId("workspace"),
  name: "Acme",
  allowedRedirectDomains: ["acme.test"],
  createdAt: t0,
  ...overrides
})

export const anApiKey = (workspaceId: Ids.WorkspaceId, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: newId("key"),
  workspaceId,
  kind: "test",
  scopes: ["posts:read", "posts:write"],
  approvalLinks: "shown",
  hash: anId("hash"),
  last4: "abcd",
  createdAt: t0,
  revokedAt: null,
  ...overrides
})

export const aProfile = (workspaceId: Ids.WorkspaceId, overrides: Partial<ProfileRecord> = {}): ProfileRecord => ({
  id: newId("profile"),
  workspaceId,
  name: "Main brand",
  createdAt: t0,
  ...overrides
})

export const anAccount = (
  workspaceId: Ids.WorkspaceId,
  profileId: Ids.ProfileId,
  overrides: Partial<AccountRecord> = {}
): AccountRecord => ({
  id: newId("account"),
  workspaceId,
  profileId,
  platform: "photo",
  handle: "@acme",
  sandbox: true,
  status: "connected",
  dailyQuota: null,
  simulate: null,
  credentials: null,
  externalId: null,
  createdAt: t0,
  ...overrides
})

/** Stores a workspace with a profile and `count` live Threads accounts, and returns them. */
export const aWorkspaceWithAccounts = (count: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    const workspace = aWorkspace()
    yield* store.createWorkspace(workspace)
    const profile = aProfile(workspace.id)
    yield* store.createProfile(profile)
    const accounts: Array<AccountRecord> = []
    for (let i = 0; i < count; i++) {
      const account = anAccount(workspace.id, profile.id, { platform: "textpost", sandbox: false })
      yield* store.createAccount(account)
      accounts.push(account)
    }
    return { workspace, profile, accounts }
  })

export const aMedia = (workspaceId: Ids.WorkspaceId, overrides: Partial<MediaRecord> = {}): MediaRecord => ({
  id: newId("media"),
  workspaceId,
  kind: "image",
  mime: "image/jpeg",
  sizeBytes: 123_456,
  filename: "photo.jpg",
  width: 1080,
  height: 1350,
  durationSeconds: null,
  blobKey: anId("blob"),
  sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  createdAt: t0,
  status: "ready",
  codec: null,
  error: null,
  sourceUrl: null,
  updatedAt: t0,
  ...overrides
})

/** A target; `aPost` sets its `workspaceId` and `postId`. */
export const aTarget = (overrides: Partial<TargetRecord> = {}): TargetRecord =>
  aTargetRecord({
    id: newId("target"),
    workspaceId: Ids.unchecked("workspace", ""),
    postId: Ids.unchecked("post", ""),
    accountId: newId("account"),
    status: "scheduled",
    options: { photo: { type: "feed" } },
    updatedAt: t0,
    ...overrides
  })

/** An approval link; `aPost` sets its `workspaceId` and `postId`. */
export const anApproval = (overrides: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  id: newId("approval"),
  workspaceId: Ids.unchecked("workspace", ""),
  postId: Ids.unchecked("post", ""),
  tokenHash: anId("token"),
  status: "pending",
  expiresAt: t0 + 86_400_000,
  decidedAt: null,
  reason: null,
  createdAt: t0,
  ...overrides
})

/** A post with one scheduled photo target unless `targets` says otherwise, and no approval. */
export const aPost = (
  workspaceId: Ids.WorkspaceId,
  overrides: Partial<PostRecord> & {
    readonly targets?: ReadonlyArray<TargetRecord>
    readonly approval?: ApprovalRecord | null
  } = {}
): PostAggregate => {
  const { approval = null, targets = [aTarget()], ...fields } = overrides
  const post: PostRecord = {
    id: newId("post"),
    workspaceId,
    profileId: newId("profile"),
    caption: "Hello",
    media: [newId("media")],
    scheduledAt: null,
    aiGenerated: false,
    approvalMode: "none",
    notify: null,
    status: "scheduled",
    publishAt: t0,
    createdAt: t0,
    updatedAt: t0,
    version: 1,
    ...fields
  }
  return {
    post,
    targets: targets.map((target) => ({ ...target, workspaceId, postId: post.id })),
    approval: approval === null ? null : { ...approval, workspaceId, postId: post.id }
  }
}

/** The next version of a post, as a use-case would save it. */
export const aSave = (
  aggregate: PostAggregate,
  change: (post: PostRecord) => Partial<PostRecord> = () => ({})
): PostAggregate => ({
  ...aggregate,
  post: { ...aggregate.post, ...change(aggregate.post), version: aggregate.post.version + 1 }
})

export const anEvent = (workspaceId: Ids.WorkspaceId, overrides: Partial<OutboxEvent> = {}): OutboxEvent => ({
  id: newId("event"),
  workspaceId,
  type: "post.created",
  createdAt: t0,
  livemode: false,
  data: { post_id: "post_1" },
  ...overrides
})
