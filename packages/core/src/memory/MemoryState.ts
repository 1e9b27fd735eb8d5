/**
 * The one in-memory state every in-memory store is a view of: every table the SQL schema has,
 * in one object, so the `Store`, the publishing queue, webhook deliveries, media, comments and
 * connections see one another's writes as the SQL stores do in one database. One key helper
 * ({@link rowKey}) builds every composite key, so no store copies another's private format.
 *
 * @since 0.3.0
 */
import type { Ids } from "@postwire/domain"
import { Context, Effect } from "effect"
import type { AccountConnectionRecord, ConnectLinkRecord } from "../accounts/ConnectStore.ts"
import type { CommentPollState, CommentRecord } from "../comments/CommentStore.ts"
import type { UploadPartRecord, UploadRecord } from "../media/MediaStore.ts"
import type { PendingPermalink } from "../publishing/PublishingStore.ts"
import type { AttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "../webhooks/WebhookStore.ts"
import type { AccountRecord, ProfileRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { MediaRecord, PostAggregate } from "../store/PostStore.ts"
import type { ApiKeyRecord, WorkspaceRecord } from "../store/WorkspaceStore.ts"
import { StoreError } from "../store/StoreError.ts"

/** The key of a row from the columns of its primary key or unique index, in order. */
export const rowKey = (...parts: ReadonlyArray<string | number | boolean>): string => parts.join("\u0000")

/** The unique key of an outbox event (`outbox_events (workspace_id, id)`). */
export const eventKey = (event: Pick<OutboxEvent, "workspaceId" | "id">): string =>
  rowKey("event", event.workspaceId, event.id)

/** Rows of one table, by workspace then id. */
export class Tables<A> {
  private readonly byWorkspace = new Map<string, Map<string, A>>()

  get(workspaceId: string, id: string): A | undefined {
    return this.byWorkspace.get(workspaceId)?.get(id)
  }

  all(workspaceId: string): ReadonlyArray<A> {
    return [...(this.byWorkspace.get(workspaceId)?.values() ?? [])]
  }

  /** Every row of every workspace (for queues that work across workspaces). */
  *everywhere(): Iterable<A> {
    for (const rows of this.byWorkspace.values()) yield* rows.values()
  }

  put(workspaceId: string, id: string, value: A): void {
    const rows = this.byWorkspace.get(workspaceId)
    if (rows === undefined) this.byWorkspace.set(workspaceId, new Map([[id, value]]))
    else rows.set(id, value)
  }

  delete(workspaceId: string, id: string): void {
    this.byWorkspace.get(workspaceId)?.delete(id)
  }

  insert(operation: string, workspaceId: string, id: string, value: A): Effect.Effect<void, StoreError> {
    return Effect.suspend(() => {
      if (this.get(workspaceId, id) !== undefined) {
        return Effect.fail(new StoreError({ operation, cause: new Error(`duplicate key ${id}`) }))
      }
      this.put(workspaceId, id, value)
      return Effect.void
    })
  }
}

/** Webhook endpoints by workspace, then id. */
export class Endpoints {
  private readonly byWorkspace = new Map<string, Map<string, WebhookEndpointRecord>>()

  get(workspaceId: string, id: string): WebhookEndpointRecord | undefined {
    return this.byWorkspace.get(workspaceId)?.get(id)
  }

  all(workspaceId: string): ReadonlyArray<WebhookEndpointRecord> {
    return [...(this.byWorkspace.get(workspaceId)?.values() ?? [])]
  }

  *everywhere(): Iterable<WebhookEndpointRecord> {
    for (const rows of this.byWorkspace.values()) yield* rows.values()
  }

  put(endpoint: WebhookEndpointRecord): void {
    const rows = this.byWorkspace.get(endpoint.workspaceId)
    if (rows === undefined) this.byWorkspace.set(endpoint.workspaceId, new Map([[endpoint.id, endpoint]]))
    else rows.set(endpoint.id, endpoint)
  }

  remove(workspaceId: string, id: string): boolean {
    return this.byWorkspace.get(workspaceId)?.delete(id) ?? false
  }
}

/**
 * Every table of the in-memory engine. Each in-memory store is a view over one instance:
 * build them all over the same `MemoryTables` (the `MemoryState` service) and they behave as
 * the SQL stores over one database.
 */
export class MemoryTables {
  // Store
  readonly workspaces = new Map<string, WorkspaceRecord>()
  readonly keysByHash = new Map<string, ApiKeyRecord>()
  readonly profiles = new Tables<ProfileRecord>()
  readonly accounts = new Tables<AccountRecord>()
  readonly media = new Tables<MediaRecord>()
  readonly posts = new Tables<PostAggregate>()
  /** Outbox events by workspace, in the order they were written (pruned from the front). */
  readonly events = new Map<string, Array<OutboxEvent>>()
  readonly settings = new Map<string, string>()
  /** What the SQL schema's primary keys and unique indexes cover beyond the tables here ({@link rowKey}). */
  readonly uniqueKeys = new Set<string>()

  // ConnectStore: links and the connections of accounts connected through them
  readonly connectLinks = new Tables<ConnectLinkRecord>()
  readonly connections = new Tables<AccountConnectionRecord>()

  // MediaStore, by `rowKey(workspace, media id)`
  readonly uploads = new Map<string, UploadRecord>()
  readonly uploadParts = new Map<string, Map<number, UploadPartRecord>>()
  readonly mediaLeases = new Map<string, { readonly owner: string; readonly until: number }>()

  // PublishingStore: pending permalinks by `rowKey(workspace, target id)`
  readonly pendingPermalinks = new Map<string, PendingPermalink>()

  // CommentStore
  /** Comments by `rowKey(workspace, id)`. */
  readonly comments = new Map<string, CommentRecord>()
  /** `rowKey(workspace, account, platform comment id)` → comment id: the unique key. */
  readonly commentsByPlatformId = new Map<string, Ids.CommentId>()
  readonly deletedComments = new Set<string>()
  /** Poll states by `rowKey(workspace, target)`. */
  readonly commentPolls = new Map<string, CommentPollState>()
  /** Calls by `rowKey(workspace, account)`, in the account's current window. */
  readonly commentBudgets = new Map<string, { readonly windowStart: number; readonly calls: number }>()

  // WebhookStore
  readonly endpoints = new Endpoints()
  /** Deliveries by `rowKey(workspace, endpoint, event)`. */
  readonly deliveries = new Map<string, WebhookDeliveryRecord>()
  /** Attempts of each delivery (by delivery key), oldest first. */
  readonly attempts = new Map<string, Array<AttemptRecord>>()
  /** Keys of pending deliveries, so claims never scan finished ones. */
  readonly pendingDeliveries = new Set<string>()
  /** Per workspace, how many of its outbox events have been fanned out. */
  readonly fannedOut = new Map<string, number>()
  /** The log-pruning lease. */
  pruneLease: { owner: string; until: number } | null = null

  /** Appends events to the outbox and takes their unique keys (the caller checked them). */
  appendEvents(list: ReadonlyArray<OutboxEvent>): void {
    for (const event of list) {
      this.uniqueKeys.add(eventKey(event))
      const log = this.events.get(event.workspaceId)
      if (log === undefined) this.events.set(event.workspaceId, [event])
      else log.push(event)
    }
  }

  /** The first key in `keys` already taken, also counting duplicates within `keys`. */
  takenKey(keys: ReadonlyArray<string>): string | undefined {
    const seen = new Set<string>()
    for (const k of keys) {
      if (this.uniqueKeys.has(k) || seen.has(k)) return k
      seen.add(k)
    }
    return undefined
  }
}

/** The one in-memory state, shared by every in-memory store of an engine. */
export class MemoryState extends Context.Service<MemoryState, MemoryTables>()("postwire/MemoryState") {}
