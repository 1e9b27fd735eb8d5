/**
 * One decoder per table row, shared by every SQL store: each row is checked by a `Schema`
 * (built once, at module load) and mapped to its record. Where drivers differ, the column types
 * here absorb it: a `bigint` column arrives as a number (PGlite), a `bigint` (`@effect/sql-pg`)
 * or a string (others, `count(*)`); a `jsonb` column arrives parsed, or as its text.
 *
 * A row that does not decode throws a {@link RowDecodeError} naming the table and the columns
 * (never their values: a row may hold credentials); the stores' `operation` wrapper turns it
 * into a `StoreError`.
 *
 * @internal
 */
import type {
  AccountConnectionRecord,
  AccountRecord,
  ApiKeyRecord,
  ApprovalRecord,
  AttemptRecord,
  CommentPollState,
  CommentRecord,
  ConnectLinkRecord,
  MediaRecord,
  OutboxEvent,
  PendingPermalink,
  PostRecord,
  ProfileRecord,
  StoredDeliveryError,
  TargetRecord,
  UploadPartRecord,
  UploadRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WorkspaceRecord
} from "@postwire/core"
import { type Ids, Platform, platformPattern } from "@postwire/domain"
import { Cause, Exit, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

/** A row that does not match its table's decoder: which table, which columns. */
export class RowDecodeError extends Error {
  readonly _tag = "RowDecodeError"
  constructor(
    readonly table: string,
    readonly columns: ReadonlyArray<string>
  ) {
    super(`a row of ${table} does not decode (columns: ${columns.join(", ") || "(row)"})`)
    this.name = "RowDecodeError"
  }
}

/** Whether a defect is a row that did not decode. */
export const isRowDecodeError = (u: unknown): u is RowDecodeError => u instanceof RowDecodeError

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** What a fast column reader answers for a value its column does not accept. */
const Invalid: unique symbol = Symbol("Invalid")
type Reader = (value: unknown) => unknown

/**
 * The fast readers of the column types below, by schema. A row is read column by column with
 * plain checks that accept exactly what the column's schema accepts; the schema itself runs only
 * for a column without a reader, and for a row that fails, to name its bad columns. (Schema's
 * general interpreter costs about a hundred times the plain checks, paid on every row of every
 * page read.)
 */
const readers = new WeakMap<object, Reader>()

const withReader = <S extends Schema.Top>(schema: S, read: Reader): S => {
  readers.set(schema, read)
  return schema
}

/** The reader of a column schema: its fast reader, or else the schema's own decoder. */
const readerOf = (schema: Schema.Top): Reader => {
  const fast = readers.get(schema)
  if (fast !== undefined) return fast
  const decode = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown, never, never>)
  return (value) => {
    const exit = decode(value)
    return Exit.isSuccess(exit) ? exit.value : Invalid
  }
}

/** A decoder for `table`, compiled once: throws a {@link RowDecodeError} (paths only) on a bad row. */
const decoder = <F extends Schema.Struct.Fields>(table: string, schema: Schema.Struct<F>) => {
  const columns = Object.entries(schema.fields).map(([name, column]) => [name, readerOf(column as Schema.Top)] as const)
  const decode = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<unknown, unknown, never, never>)
  return (row: unknown): Schema.Struct<F>["Type"] => {
    if (typeof row === "object" && row !== null) {
      const out: Record<string, unknown> = {}
      let ok = true
      for (const [name, read] of columns) {
        const value = read((row as Record<string, unknown>)[name])
        if (value === Invalid) {
          ok = false
          break
        }
        out[name] = value
      }
      if (ok) return out as Schema.Struct<F>["Type"]
    }
    // The slow path, once: every problem of the row, for the message.
    const all = decode(row, { errors: "all" })
    const failure = Exit.isFailure(all) ? Cause.findErrorOption(all.cause) : Option.none()
    const columnNames =
      Option.isSome(failure) && Schema.isSchemaError(failure.value)
        ? [...new Set(formatIssue(failure.value.issue).issues.map((issue) => (issue.path ?? []).map(String).join(".")))]
        : []
    throw new RowDecodeError(table, columnNames)
  }
}

// Column types -----------------------------------------------------------------------------

/** A number from a numeric column: a number, a `bigint` or its text, depending on the driver. */
export const Num = withReader(
  Schema.Union([Schema.Number, Schema.BigInt, Schema.String]).pipe(
    Schema.decodeTo(
      Schema.Finite,
      SchemaTransformation.transform({ decode: (value) => Number(value), encode: (n) => n })
    )
  ),
  (value) => {
    if (typeof value === "number") return Number.isFinite(value) ? value : Invalid
    if (typeof value !== "bigint" && typeof value !== "string") return Invalid
    const n = Number(value)
    return Number.isFinite(n) ? n : Invalid
  }
)

/**
 * A `jsonb` column holding `schema`, which never accepts a bare string: parsed by the driver, or
 * its text (parsed here). A column whose value may itself be a JSON string (a platform's state)
 * is read as the driver hands it (`Schema.Unknown`): parsing it again would corrupt it.
 */
const parseOr = (text: string, otherwise: unknown): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return otherwise
  }
}

export const Json = <S extends Schema.Top>(schema: S) => {
  const read = readerOf(schema)
  return withReader(
    Schema.Unknown.pipe(
      Schema.decodeTo(
        schema,
        SchemaTransformation.transform({
          // Text that is not JSON becomes a value no column type accepts, so the column is named.
          decode: (value: unknown) => (typeof value === "string" ? parseOr(value, Invalid) : value),
          encode: (value: unknown) => value
        })
      )
    ),
    (value) => {
      if (typeof value !== "string") return read(value)
      const parsed = parseOr(value, Invalid)
      return parsed === Invalid ? Invalid : read(parsed)
    }
  )
}

/** A nullable column; also accepts a column the query did not select (read as `null`). */
const orNull = <S extends Schema.Top>(schema: S) => {
  const read = readerOf(schema)
  return withReader(Schema.optional(Schema.NullOr(schema)), (value) =>
    value === undefined || value === null ? value : read(value)
  )
}

/** A nullable column the query always selects. */
const nullOr = <S extends Schema.Top>(schema: S) => {
  const read = readerOf(schema)
  return withReader(Schema.NullOr(schema), (value) => (value === null ? null : read(value)))
}

/** A text column holding one of `values`. */
const literals = <const L extends ReadonlyArray<string>>(values: L) => {
  const allowed = new Set<unknown>(values)
  return withReader(Schema.Literals(values), (value) => (allowed.has(value) ? value : Invalid))
}

const Str = withReader(Schema.String, (value) => (typeof value === "string" ? value : Invalid))
const Bool = withReader(Schema.Boolean, (value) => (typeof value === "boolean" ? value : Invalid))
const Strings = withReader(Schema.Array(Schema.String), (value) =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value : Invalid
)
const Unknown = withReader(Schema.Unknown, (value) => value)
// A built-in platform or a registered plugin's: the word's form is checked, the registry serves it.
const PlatformColumn = withReader(Platform.check(Schema.isPattern(platformPattern)).annotate({ description: "platform" }), (value) => (typeof value === "string" && platformPattern.test(value) ? value : Invalid))
/** A JSON object, its members left to the record's own type (checking each member of a map costs more). */
const isJsonObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)
const JsonObject = Json(
  withReader(Schema.declare(isJsonObject, { expected: "a JSON object" }), (value) => (isJsonObject(value) ? value : Invalid))
)

// Store: workspaces, keys, profiles, accounts, media ----------------------------------------

const decodeWorkspace = decoder(
  "workspaces",
  Schema.Struct({ id: Str, name: Str, allowed_redirect_domains: Json(Strings), created_at: Num })
)

export const workspaceFromRow = (input: unknown): WorkspaceRecord => {
  const row = decodeWorkspace(input)
  return { id: row.id as Ids.WorkspaceId, name: row.name, allowedRedirectDomains: row.allowed_redirect_domains, createdAt: row.created_at }
}

const decodeApiKey = decoder(
  "api_keys",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    kind: Str,
    scopes: Json(Strings),
    approval_links: Str,
    key_hash: Str,
    last4: Str,
    created_at: Num,
    revoked_at: orNull(Num)
  })
)

export const apiKeyFromRow = (input: unknown): ApiKeyRecord => {
  const row = decodeApiKey(input)
  return {
    id: row.id as Ids.KeyId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    kind: row.kind as ApiKeyRecord["kind"],
    scopes: row.scopes as ApiKeyRecord["scopes"],
    approvalLinks: row.approval_links === "hidden" ? "hidden" : "shown",
    hash: row.key_hash,
    last4: row.last4,
    createdAt: row.created_at,
    revokedAt: row.revoked_at ?? null
  }
}

const decodeProfile = decoder("profiles", Schema.Struct({ workspace_id: Str, id: Str, name: Str, created_at: Num }))

export const profileFromRow = (input: unknown): ProfileRecord => {
  const row = decodeProfile(input)
  return { id: row.id as Ids.ProfileId, workspaceId: row.workspace_id as Ids.WorkspaceId, name: row.name, createdAt: row.created_at }
}

const decodeAccount = decoder(
  "accounts",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    profile_id: Str,
    platform: PlatformColumn,
    handle: Str,
    sandbox: Bool,
    status: Str,
    daily_quota: orNull(Num),
    simulate: orNull(JsonObject),
    credentials: orNull(Str),
    external_id: orNull(Str),
    created_at: Num
  })
)

export const accountFromRow = (input: unknown): AccountRecord => {
  const row = decodeAccount(input)
  return {
    id: row.id as Ids.AccountId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    profileId: row.profile_id as Ids.ProfileId,
    platform: row.platform,
    handle: row.handle,
    sandbox: row.sandbox,
    status: row.status as AccountRecord["status"],
    dailyQuota: row.daily_quota ?? null,
    simulate: (row.simulate ?? null) as AccountRecord["simulate"],
    credentials: row.credentials ?? null,
    externalId: row.external_id ?? null,
    createdAt: row.created_at
  }
}

const decodeMedia = decoder(
  "media",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    kind: Str,
    mime: Str,
    size_bytes: Num,
    filename: orNull(Str),
    width: orNull(Num),
    height: orNull(Num),
    duration_seconds: orNull(Num),
    blob_key: Str,
    sha256: Str,
    created_at: Num,
    status: orNull(Str),
    error: orNull(JsonObject),
    codec: orNull(Str),
    source_url: orNull(Str),
    updated_at: orNull(Num)
  })
)

/** A media record; a row from before the media lifecycle reads as `ready`, updated when created. */
export const mediaFromRow = (input: unknown): MediaRecord => {
  const row = decodeMedia(input)
  return {
    id: row.id as Ids.MediaId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    kind: row.kind as MediaRecord["kind"],
    mime: row.mime,
    sizeBytes: row.size_bytes,
    filename: row.filename ?? null,
    width: row.width ?? null,
    height: row.height ?? null,
    durationSeconds: row.duration_seconds ?? null,
    blobKey: row.blob_key,
    sha256: row.sha256,
    createdAt: row.created_at,
    status: (row.status ?? "ready") as NonNullable<MediaRecord["status"]>,
    error: (row.error ?? null) as MediaRecord["error"],
    codec: row.codec ?? null,
    sourceUrl: row.source_url ?? null,
    updatedAt: row.updated_at ?? row.created_at
  }
}

// Posts, targets, approvals, events ---------------------------------------------------------

const decodePost = decoder(
  "posts",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    profile_id: Str,
    caption: Str,
    media: Json(Strings),
    scheduled_at: orNull(Num),
    ai_generated: Bool,
    approval_mode: Str,
    notify: orNull(JsonObject),
    status: Str,
    publish_at: Num,
    created_at: Num,
    updated_at: Num,
    version: Num,
    trace_parent: orNull(Str)
  })
)

export const postFromRow = (input: unknown): PostRecord => {
  const row = decodePost(input)
  return {
    id: row.id as Ids.PostId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    profileId: row.profile_id as Ids.ProfileId,
    caption: row.caption,
    media: row.media as ReadonlyArray<Ids.MediaId>,
    scheduledAt: row.scheduled_at ?? null,
    aiGenerated: row.ai_generated,
    approvalMode: row.approval_mode as PostRecord["approvalMode"],
    notify: (row.notify ?? null) as PostRecord["notify"],
    status: row.status as PostRecord["status"],
    publishAt: row.publish_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    ...(typeof row.trace_parent === "string" ? { traceParent: row.trace_parent } : {})
  }
}

const decodeTarget = decoder(
  "targets",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    post_id: Str,
    account_id: Str,
    platform: PlatformColumn,
    status: Str,
    options: JsonObject,
    consent: orNull(JsonObject),
    permalink: orNull(Str),
    published_at: orNull(Num),
    // The stored error is read as it is stored (JSON); what it holds is the publisher's.
    error: orNull(JsonObject),
    attempts: Num,
    // Any JSON, a bare string included: taken as the driver parsed it (see `Json`).
    platform_state: orNull(Unknown),
    due_at: orNull(Num),
    lease_owner: orNull(Str),
    lease_until: orNull(Num),
    updated_at: Num
  })
)

export const targetFromRow = (input: unknown): TargetRecord => {
  const row = decodeTarget(input)
  return {
    id: row.id as Ids.TargetId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    postId: row.post_id as Ids.PostId,
    accountId: row.account_id as Ids.AccountId,
    platform: row.platform,
    status: row.status as TargetRecord["status"],
    options: row.options as TargetRecord["options"],
    consent: (row.consent ?? null) as TargetRecord["consent"],
    permalink: row.permalink ?? null,
    publishedAt: row.published_at ?? null,
    error: (row.error ?? null) as TargetRecord["error"],
    attempts: row.attempts,
    platformState: row.platform_state ?? null,
    dueAt: row.due_at ?? null,
    leaseOwner: row.lease_owner ?? null,
    leaseUntil: row.lease_until ?? null,
    updatedAt: row.updated_at
  }
}

const decodeApproval = decoder(
  "approvals",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    post_id: Str,
    token_hash: Str,
    status: Str,
    expires_at: Num,
    decided_at: orNull(Num),
    reason: orNull(Str),
    created_at: Num
  })
)

export const approvalFromRow = (input: unknown): ApprovalRecord => {
  const row = decodeApproval(input)
  return {
    id: row.id as Ids.ApprovalId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    postId: row.post_id as Ids.PostId,
    tokenHash: row.token_hash,
    status: row.status as ApprovalRecord["status"],
    expiresAt: row.expires_at,
    decidedAt: row.decided_at ?? null,
    reason: row.reason ?? null,
    createdAt: row.created_at
  }
}

const decodeEvent = decoder(
  "outbox_events",
  Schema.Struct({ workspace_id: Str, id: Str, type: Str, created_at: Num, livemode: Bool, data: JsonObject })
)

export const eventFromRow = (input: unknown): OutboxEvent => {
  const row = decodeEvent(input)
  return {
    id: row.id as Ids.EventId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    type: row.type,
    createdAt: row.created_at,
    livemode: row.livemode,
    data: row.data
  }
}

// Publishing --------------------------------------------------------------------------------

const decodePending = decoder(
  "pending_permalinks",
  Schema.Struct({
    workspace_id: Str,
    post_id: Str,
    target_id: Str,
    account_id: Str,
    since: Num,
    asked: Num,
    ask_at: Num,
    lease_owner: orNull(Str),
    lease_until: orNull(Num)
  })
)

export const pendingFromRow = (input: unknown): PendingPermalink => {
  const row = decodePending(input)
  return {
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    postId: row.post_id as Ids.PostId,
    targetId: row.target_id as Ids.TargetId,
    accountId: row.account_id as Ids.AccountId,
    since: row.since,
    asked: row.asked,
    askAt: row.ask_at,
    leaseOwner: row.lease_owner ?? null,
    leaseUntil: row.lease_until ?? null
  }
}

// Media uploads -----------------------------------------------------------------------------

const decodeUpload = decoder(
  "media_uploads",
  Schema.Struct({
    workspace_id: Str,
    media_id: Str,
    size: Num,
    part_size: Num,
    reference: Str,
    status: Str,
    created_at: Num,
    expires_at: Num
  })
)

export const uploadFromRow = (input: unknown): UploadRecord => {
  const row = decodeUpload(input)
  return {
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    mediaId: row.media_id as Ids.MediaId,
    size: row.size,
    partSize: row.part_size,
    reference: row.reference,
    status: row.status as UploadRecord["status"],
    createdAt: row.created_at,
    expiresAt: row.expires_at
  }
}

const decodePart = decoder("media_upload_parts", Schema.Struct({ part_number: Num, size: Num, tag: Str }))

export const partFromRow = (input: unknown): UploadPartRecord => {
  const row = decodePart(input)
  return { number: row.part_number, size: row.size, tag: row.tag }
}

// Webhooks ----------------------------------------------------------------------------------

const decodeEndpoint = decoder(
  "webhook_endpoints",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    url: Str,
    events: Json(Strings),
    secret: Str,
    previous_secret: orNull(Str),
    previous_secret_expires_at: orNull(Num),
    active: Bool,
    disabled_reason: orNull(Str),
    disabled_at: orNull(Num),
    last_success_at: orNull(Num),
    failing_since: orNull(Num),
    subscribed_from: Num,
    created_at: Num,
    approval_links: Str
  })
)

export const endpointFromRow = (input: unknown): WebhookEndpointRecord => {
  const row = decodeEndpoint(input)
  return {
    id: row.id as Ids.WebhookId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    url: row.url,
    events: row.events,
    secret: row.secret,
    previousSecret: row.previous_secret ?? null,
    previousSecretExpiresAt: row.previous_secret_expires_at ?? null,
    active: row.active,
    disabledReason: (row.disabled_reason ?? null) as WebhookEndpointRecord["disabledReason"],
    disabledAt: row.disabled_at ?? null,
    lastSuccessAt: row.last_success_at ?? null,
    failingSince: row.failing_since ?? null,
    subscribedFrom: row.subscribed_from,
    createdAt: row.created_at,
    approvalLinks: row.approval_links === "hidden" ? "hidden" : "shown"
  }
}

const decodeDelivery = decoder(
  "webhook_deliveries",
  Schema.Struct({
    workspace_id: Str,
    endpoint_id: Str,
    event_id: Str,
    id: Str,
    event_type: Str,
    status: literals(["pending", "delivered", "dead"]),
    attempts: Num,
    first_attempt_at: orNull(Num),
    last_attempt_at: orNull(Num),
    next_attempt_at: orNull(Num),
    last_status_code: orNull(Num),
    last_error: orNull(Str),
    lease_owner: orNull(Str),
    lease_until: orNull(Num),
    created_at: Num
  })
)

export const deliveryFromRow = (input: unknown): WebhookDeliveryRecord => {
  const row = decodeDelivery(input)
  return {
    id: row.id as Ids.DeliveryId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    endpointId: row.endpoint_id as Ids.WebhookId,
    eventId: row.event_id as Ids.EventId,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    firstAttemptAt: row.first_attempt_at ?? null,
    lastAttemptAt: row.last_attempt_at ?? null,
    nextAttemptAt: row.next_attempt_at ?? null,
    lastStatusCode: row.last_status_code ?? null,
    lastError: row.last_error ?? null,
    leaseOwner: row.lease_owner ?? null,
    leaseUntil: row.lease_until ?? null,
    createdAt: row.created_at
  }
}

const decodeAttempt = decoder(
  "webhook_attempts",
  Schema.Struct({
    number: Num,
    attempted_at: Num,
    duration_ms: Num,
    status_code: orNull(Num),
    response_body: orNull(Str),
    error: orNull(JsonObject),
    redelivery: Bool
  })
)

export const attemptFromRow = (input: unknown): AttemptRecord => {
  const row = decodeAttempt(input)
  return {
    number: row.number,
    at: row.attempted_at,
    durationMs: row.duration_ms,
    statusCode: row.status_code ?? null,
    responseBody: row.response_body ?? null,
    error: (row.error ?? null) as StoredDeliveryError | null,
    redelivery: row.redelivery
  }
}

// Connect -----------------------------------------------------------------------------------

const decodeLink = decoder(
  "connect_links",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    profile_id: Str,
    platform: PlatformColumn,
    sandbox: Bool,
    redirect_url: nullOr(Str),
    account_id: nullOr(Str),
    token_hash: Str,
    state_hash: nullOr(Str),
    code_verifier: nullOr(Str),
    pending_choice: nullOr(Str),
    expires_at: Num,
    completed_at: nullOr(Num),
    account_ids: Json(Strings),
    created_by: Str,
    created_at: Num
  })
)

export const linkFromRow = (input: unknown): ConnectLinkRecord => {
  const r = decodeLink(input)
  return {
    id: r.id as Ids.ConnectLinkId,
    workspaceId: r.workspace_id as Ids.WorkspaceId,
    profileId: r.profile_id as Ids.ProfileId,
    platform: r.platform,
    sandbox: r.sandbox,
    redirectUrl: r.redirect_url,
    accountId: r.account_id as Ids.AccountId | null,
    tokenHash: r.token_hash,
    stateHash: r.state_hash,
    codeVerifier: r.code_verifier,
    pendingChoice: r.pending_choice,
    expiresAt: r.expires_at,
    completedAt: r.completed_at,
    accountIds: r.account_ids as ReadonlyArray<Ids.AccountId>,
    createdBy: r.created_by,
    createdAt: r.created_at
  }
}

const decodeConnection = decoder(
  "account_connections",
  Schema.Struct({
    workspace_id: Str,
    account_id: Str,
    platform: PlatformColumn,
    sandbox: Bool,
    external_id: Str,
    grant_id: Str,
    display_name: nullOr(Str),
    avatar_url: nullOr(Str),
    scopes: Json(Strings),
    connected_at: Num,
    token_expires_at: nullOr(Num),
    refresh_expires_at: nullOr(Num),
    privacy_level_options: nullOr(Json(Strings)),
    max_video_post_duration_sec: nullOr(Num),
    refresh_at: nullOr(Num),
    refresh_failures: Num,
    lease_owner: nullOr(Str),
    lease_until: nullOr(Num),
    reconnect_reason: nullOr(Json(Schema.Struct({ code: Str, platformCode: nullOr(Str) }))),
    disconnected_at: nullOr(Num)
  })
)

export const connectionFromRow = (input: unknown): AccountConnectionRecord => {
  const r = decodeConnection(input)
  return {
    workspaceId: r.workspace_id as Ids.WorkspaceId,
    accountId: r.account_id as Ids.AccountId,
    platform: r.platform,
    sandbox: r.sandbox,
    externalId: r.external_id,
    grantId: r.grant_id,
    displayName: r.display_name,
    avatarUrl: r.avatar_url,
    scopes: r.scopes,
    connectedAt: r.connected_at,
    tokenExpiresAt: r.token_expires_at,
    refreshExpiresAt: r.refresh_expires_at,
    privacyLevelOptions: r.privacy_level_options,
    maxVideoPostDurationSec: r.max_video_post_duration_sec,
    refreshAt: r.refresh_at,
    refreshFailures: r.refresh_failures,
    leaseOwner: r.lease_owner,
    leaseUntil: r.lease_until,
    reconnectReason: r.reconnect_reason,
    disconnectedAt: r.disconnected_at
  }
}

// Comments ----------------------------------------------------------------------------------

const decodeComment = decoder(
  "comments",
  Schema.Struct({
    workspace_id: Str,
    id: Str,
    post_id: Str,
    target_id: Str,
    account_id: Str,
    platform: PlatformColumn,
    platform_comment_id: Str,
    parent_id: orNull(Str),
    parent_platform_comment_id: orNull(Str),
    author_handle: Str,
    author_display_name: orNull(Str),
    text: Str,
    created_at: Num,
    hidden: Bool,
    like_count: orNull(Num),
    from_owner: Bool,
    permalink: orNull(Str),
    stored_at: Num
  })
)

export const commentFromRow = (input: unknown): CommentRecord => {
  const row = decodeComment(input)
  return {
    id: row.id as Ids.CommentId,
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    postId: row.post_id as Ids.PostId,
    targetId: row.target_id as Ids.TargetId,
    accountId: row.account_id as Ids.AccountId,
    platform: row.platform,
    platformCommentId: row.platform_comment_id,
    parentId: (row.parent_id ?? null) as Ids.CommentId | null,
    parentPlatformCommentId: row.parent_platform_comment_id ?? null,
    authorHandle: row.author_handle,
    authorDisplayName: row.author_display_name ?? null,
    text: row.text,
    createdAt: row.created_at,
    hidden: row.hidden,
    likeCount: row.like_count ?? null,
    fromOwner: row.from_owner,
    permalink: row.permalink ?? null,
    storedAt: row.stored_at
  }
}

const decodePoll = decoder(
  "comment_polls",
  Schema.Struct({
    workspace_id: Str,
    target_id: Str,
    post_id: Str,
    account_id: Str,
    platform: PlatformColumn,
    platform_post_id: Str,
    published_at: Num,
    // The adapter's cursor, wrapped as `{ v }` so a bare JSON null or string survives jsonb.
    cursor: orNull(Json(nullOr(Schema.Struct({ v: Schema.optional(Schema.Unknown) })))),
    next_poll_at: orNull(Num),
    failures: Num,
    lease_owner: orNull(Str),
    lease_until: orNull(Num)
  })
)

export const pollFromRow = (input: unknown): CommentPollState => {
  const row = decodePoll(input)
  return {
    workspaceId: row.workspace_id as Ids.WorkspaceId,
    targetId: row.target_id as Ids.TargetId,
    postId: row.post_id as Ids.PostId,
    accountId: row.account_id as Ids.AccountId,
    platform: row.platform,
    platformPostId: row.platform_post_id,
    publishedAt: row.published_at,
    cursor: row.cursor?.v ?? null,
    nextPollAt: row.next_poll_at ?? null,
    failures: row.failures,
    leaseOwner: row.lease_owner ?? null,
    leaseUntil: row.lease_until ?? null
  }
}
