/**
 * The webhook use-cases: register, read, change and delete endpoints, roll their secrets, send
 * a test event, and `deliverEvent`, the one delivery attempt that the dispatcher, the test and
 * redeliveries share: check the address again, sign, POST with a 10 second limit, and classify
 * the answer.
 *
 * @since 0.1.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option, type Result } from "effect"
import {
  type ApprovalLinks,
  builtinPlatforms,
  defaultPageSize,
  ErrorCatalog,
  ErrorDetail,
  type ErrorItem,
  formatInstant,
  type Locale,
  type LocalizedText,
  PostwireError,
  renderError,
  type Webhook
} from "@postwire/domain"
import { type Caller, testKeyLiveAccount } from "../Caller.ts"
import { EngineConfig } from "../EngineConfig.ts"
import * as Spans from "../Spans.ts"
import { Ids } from "../ids/Ids.ts"
import { CredentialsCipher, type CredentialsCipherShape } from "../secrets/CredentialsCipher.ts"
import { decodeCursor, encodeCursor, filterDigest } from "../posts/Cursor.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { Keyset } from "../store/Keyset.ts"
import { Store } from "../store/Store.ts"
import { attemptTimeoutMs } from "./DeliverySchedule.ts"
import { eventIdHeaderName, secretPrefix, signatureHeader, signatureHeaderName } from "./Signature.ts"
import { checkDeliveryAddress, checkWebhookUrl, type DeliveryTarget, type Resolver, UnsafeUrl } from "../urls/UrlSafety.ts"
import { describeUnsafeUrl, WebhookSettings } from "../urls/UrlSettings.ts"
import type { DeliveryFailureData, StoredDeliveryError, WebhookEndpointRecord } from "./WebhookStore.ts"
import { WebhookStore } from "./WebhookStore.ts"
import { WebhookTransport } from "./WebhookTransport.ts"
import * as EventSecrets from "../secrets/EventSecrets.ts"
import * as WebhookSecrets from "./WebhookSecrets.ts"

export { describeUnsafeUrl, WebhookSettings, type WebhookSettingsShape } from "../urls/UrlSettings.ts"

/** Longest accepted endpoint URL. */
export const maxUrlLength = 2048

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

const notFound = () => new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("webhook_endpoint") } })

/** How long the previous secret keeps signing after a rotation, by default: one day. */
export const defaultSecretOverlapSeconds = 24 * 60 * 60

/**
 * The secrets that sign a delivery sent at `at`, as stored (sealed): the current one, then the
 * previous one while it has not expired.
 */
export const signingSecrets = (
  endpoint: Pick<WebhookEndpointRecord, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  at: number
): ReadonlyArray<string> =>
  endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > at
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret]

/** The endpoint as the API shows it at `at`, without its secrets. */
export const endpointView = (endpoint: WebhookEndpointRecord, at: number): Webhook.WebhookEndpoint => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events as ReadonlyArray<Webhook.WebhookEventType>,
  active: endpoint.active,
  disabled_reason: endpoint.disabledReason as Webhook.DisabledReason | null,
  disabled_at: endpoint.disabledAt === null ? null : formatInstant(endpoint.disabledAt),
  created_at: formatInstant(endpoint.createdAt),
  previous_secret_expires_at: signingSecrets(endpoint, at).length > 1 ? formatInstant(endpoint.previousSecretExpiresAt!) : null
})

const invalidUrl = (detail: LocalizedText) => new PostwireError({ code: "invalid_url", field: "url", details: { detail } })

/** Whether the workspace has a live (non-sandbox) account, in any status. */
const hasLiveAccount = Effect.fn("webhooks.hasLiveAccount")(function* (workspaceId: Id.WorkspaceId) {
  const store = yield* Store
  let after: Keyset | undefined
  for (;;) {
    const accounts = yield* store.listAccounts(workspaceId, {}, after, 500)
    if (accounts.some((a) => !a.sandbox)) return true
    const last = accounts.at(-1)
    if (accounts.length < 500 || last === undefined) return false
    after = { sortKey: last.createdAt, id: last.id }
  }
})

/**
 * Refuses a test key the workspace's endpoints once the workspace has a live account: an endpoint
 * receives every event of its workspace, live ones included, so it carries live data (and one a
 * test key made would receive it). 403 `test_key_live_account` naming `field`.
 */
export const refuseTestKeyInLiveWorkspace = Effect.fn("webhooks.checkMode")(function* (caller: Caller, field = "id") {
  if (caller.kind === "test" && (yield* hasLiveAccount(caller.workspaceId))) return yield* Effect.fail(testKeyLiveAccount(field))
})

/**
 * Registers an endpoint: the URL, without the whitespace around it, must be a public https
 * address (or loopback when the server allows it), the events known types listed once each.
 * The answer carries the secret, the only time it is shown.
 *
 * @example
 * ```ts
 * const endpoint = yield* Webhooks.createEndpoint(caller, { url: "https://hooks.example.com/postwire", events: ["post.published"] })
 * endpoint.secret // "whsec_…"
 * ```
 */
export const createEndpoint = Effect.fn("webhooks.create")(function* (
  caller: Caller,
  request: Webhook.CreateWebhookRequest
) {
  const store = yield* WebhookStore
  yield* refuseTestKeyInLiveWorkspace(caller, "events")
  yield* checkEventTypes(request.events)
  const url = yield* checkUrl(request.url)
  const ids = yield* Ids
  const cipher = yield* CredentialsCipher
  const at = yield* now
  const id = yield* ids.make("webhook")
  // Shown once, in this answer; stored sealed for this endpoint.
  const secret = secretPrefix + (yield* ids.secret(32))
  const endpoint: WebhookEndpointRecord = {
    id,
    workspaceId: caller.workspaceId,
    url,
    events: request.events,
    secret: WebhookSecrets.seal(cipher, { workspaceId: caller.workspaceId, id }, secret),
    previousSecret: null,
    previousSecretExpiresAt: null,
    active: true,
    disabledReason: null,
    disabledAt: null,
    lastSuccessAt: null,
    failingSince: null,
    subscribedFrom: at,
    createdAt: at,
    approvalLinks: caller.approvalLinks ?? "shown"
  }
  yield* store.createEndpoint(endpoint)
  return { ...endpointView(endpoint, at), secret } satisfies Webhook.CreatedWebhookEndpoint
})

/** Each event type at most once: a repeated type is `invalid_request` naming its position. */
const checkEventTypes = (events: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const seen = new Set<string>()
    for (const [index, type] of events.entries()) {
      if (seen.has(type)) {
        return Effect.fail(
          new PostwireError({
            code: "invalid_request",
            field: `events[${index}]`,
            details: { detail: ErrorDetail.reason("event_type_listed_twice") }
          })
        )
      }
      seen.add(type)
    }
    return Effect.void
  })

/** The address an endpoint may have, without the whitespace around it; `invalid_url` naming `url` otherwise. */
const checkUrl = Effect.fn("webhooks.checkUrl")(function* (given: string) {
  const settings = yield* WebhookSettings
  // Whitespace around a pasted address is dropped, so the `url` stored and shown is the address
  // that is checked and called, not a string the URL parser quietly trims at every delivery.
  const url = given.trim()
  if (url.length > maxUrlLength) return yield* invalidUrl(ErrorDetail.reason("url_too_long", { max: maxUrlLength }))
  yield* checkWebhookUrl(url, { allowLoopback: settings.allowLoopback }).pipe(
    Effect.catchTag("UnsafeUrl", (error) => Effect.fail(invalidUrl(describeUnsafeUrl(error))))
  )
  return url
})

/** One endpoint of the workspace, without its secrets; `not_found` for another workspace's. */
export const getEndpoint = Effect.fn("webhooks.get")(function* (caller: Caller, id: Id.WebhookId) {
  const store = yield* WebhookStore
  const found = yield* store.getEndpoint(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* notFound()
  yield* refuseTestKeyInLiveWorkspace(caller)
  return endpointView(found.value, yield* now)
})

/**
 * Changes an endpoint: its `url` (checked like at registration), its `events`, and `active`.
 * `active: true` re-enables a disabled endpoint, which then receives the events created from
 * now on (those given up while it was disabled stay in its log, for redelivery); `active:
 * false` disables it, giving up the deliveries still waiting.
 *
 * @example
 * ```ts
 * yield* Webhooks.updateEndpoint(caller, "wh_…", { active: true })
 * ```
 */
export const updateEndpoint = Effect.fn("webhooks.update")(function* (
  caller: Caller,
  id: Id.WebhookId,
  request: Webhook.UpdateWebhookRequest
) {
  const store = yield* WebhookStore
  yield* refuseTestKeyInLiveWorkspace(caller)
  if (request.events !== undefined) yield* checkEventTypes(request.events)
  const url = request.url === undefined ? undefined : yield* checkUrl(request.url)
  const at = yield* now
  const updated = yield* store.updateEndpoint(
    caller.workspaceId,
    id,
    {
      url,
      events: request.events,
      enable: request.active === true ? true : undefined,
      disable: request.active === false ? "disabled_by_request" : undefined,
      // A key that may not see approval links cannot get them by pointing an endpoint at itself.
      hideApprovalLinks: caller.approvalLinks === "hidden" ? true : undefined
    },
    at
  )
  if (Option.isNone(updated)) return yield* notFound()
  return endpointView(updated.value, at)
})

/**
 * Gives an endpoint a new secret, shown in the answer this once. The current secret keeps
 * signing beside it for `expires_in_seconds` (one day by default; `0` retires it at once), so
 * a receiver can switch without missing or refusing a delivery. A rotation during another
 * drops the oldest secret: at most two sign.
 *
 * @example
 * ```ts
 * const rotated = yield* Webhooks.rotateSecret(caller, "wh_…", { expires_in_seconds: 0 })
 * rotated.secret // "whsec_…", the only secret that signs from now on
 * ```
 */
export const rotateSecret = Effect.fn("webhooks.rotateSecret")(function* (
  caller: Caller,
  id: Id.WebhookId,
  request: Webhook.RotateSecretRequest
) {
  const store = yield* WebhookStore
  yield* refuseTestKeyInLiveWorkspace(caller)
  const ids = yield* Ids
  const at = yield* now
  const cipher = yield* CredentialsCipher
  const secret = secretPrefix + (yield* ids.secret(32))
  const sealed = WebhookSecrets.seal(cipher, { workspaceId: caller.workspaceId, id }, secret)
  const overlapSeconds = request.expires_in_seconds ?? defaultSecretOverlapSeconds
  const updated = yield* store.updateEndpoint(
    caller.workspaceId,
    id,
    { rotateSecret: { secret: sealed, previousExpiresAt: at + overlapSeconds * 1000 } },
    at
  )
  if (Option.isNone(updated)) return yield* notFound()
  return { ...endpointView(updated.value, at), secret } satisfies Webhook.CreatedWebhookEndpoint
})

/** The workspace's endpoints, newest first, in pages; never with their secrets. */
export const listEndpoints = Effect.fn("webhooks.list")(function* (caller: Caller, query: Webhook.ListWebhooksQuery) {
  const store = yield* WebhookStore
  const settings = yield* EngineConfig
  const at = yield* now
  const digest = filterDigest(`webhooks:${caller.workspaceId}`, {})
  let after: Keyset | undefined
  if (query.cursor !== undefined) {
    const decoded = decodeCursor(settings.keyring, query.cursor, digest, at, settings.cursorTtlMs)
    if (Option.isNone(decoded)) return yield* new PostwireError({ code: "invalid_cursor", field: "cursor" })
    after = decoded.value
  }
  const limit = query.limit ?? defaultPageSize
  // A test key sees no endpoint of a workspace with a live account (they carry its live events).
  const hidden = caller.kind === "test" && (yield* hasLiveAccount(caller.workspaceId))
  const rows = hidden ? [] : yield* store.listEndpoints(caller.workspaceId, after, limit + 1)
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  const hasMore = rows.length > limit && last !== undefined
  return {
    data: items.map((endpoint) => endpointView(endpoint, at)),
    cursor: {
      next: hasMore ? encodeCursor(settings.keyring, { sortKey: last.createdAt, id: last.id }, digest, at) : null,
      has_more: hasMore
    }
  } satisfies Webhook.WebhookEndpointList
})

/** Removes an endpoint of the workspace; deliveries still pending for it are dropped. */
export const deleteEndpoint = Effect.fn("webhooks.delete")(function* (caller: Caller, id: Id.WebhookId) {
  const store = yield* WebhookStore
  yield* refuseTestKeyInLiveWorkspace(caller)
  const deleted = yield* store.deleteEndpoint(caller.workspaceId, id)
  if (!deleted) return yield* notFound()
  return { id, deleted: true } satisfies Webhook.DeletedWebhookEndpoint
})

/**
 * An event as its deliveries carry it and the events API shows it: `{ id, type, created_at,
 * livemode, data }`, its approval link opened with `cipher` (see {@link EventSecrets}).
 */
export const eventView = (event: OutboxEvent, cipher: CredentialsCipherShape, links: ApprovalLinks = "shown"): Webhook.Event => {
  const opened = links === "hidden" ? EventSecrets.withoutLink(event) : EventSecrets.openEvent(cipher, event)
  return {
    id: opened.id,
    type: opened.type as Webhook.WebhookEventType,
    created_at: formatInstant(opened.createdAt),
    livemode: opened.livemode,
    data: opened.data
  }
}

/**
 * The JSON body of a delivery to `endpoint`: the {@link eventView} (without its approval link
 * when the endpoint's are hidden), plus `test: true` for a test event.
 */
export const eventBody = (
  event: OutboxEvent,
  cipher: CredentialsCipherShape,
  endpoint: Pick<WebhookEndpointRecord, "approvalLinks">,
  options: { readonly test?: boolean } = {}
): string => JSON.stringify({ ...eventView(event, cipher, endpoint.approvalLinks), ...(options.test === true ? { test: true } : {}) })

/** Why an attempt did not succeed. */
export type DeliveryFailure =
  | { readonly _tag: "UnsafeUrl"; readonly error: UnsafeUrl }
  | { readonly _tag: "HttpStatus"; readonly statusCode: number }
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Unreachable"; readonly detail: string }
  /** The endpoint's current secret does not open with any listed master secret: nothing was sent. */
  | { readonly _tag: "SecretUnreadable" }

/** What one attempt came to. */
export interface DeliveryAttempt {
  /** When it started. */
  readonly at: number
  readonly delivered: boolean
  readonly statusCode: number | null
  /** The first 1 KB of the answer's body; `null` when no answer came. */
  readonly responseBody: string | null
  readonly durationMs: number
  readonly failure: DeliveryFailure | null
}

/** A short, stable description of a failure, as kept on the delivery (`http_500`, `timeout`, …). */
export const failureCode = (failure: DeliveryFailure): string => {
  switch (failure._tag) {
    case "UnsafeUrl":
      return `unsafe_url: ${failure.error.reason}`
    case "HttpStatus":
      return `http_${failure.statusCode}`
    case "Timeout":
      return "timeout"
    case "Unreachable":
      return `unreachable: ${failure.detail}`
    case "SecretUnreadable":
      return "signing_secret_unreadable"
  }
}

/** A failure as data, to be stored and rendered when read. */
export const failureData = (failure: DeliveryFailure): DeliveryFailureData => {
  switch (failure._tag) {
    case "UnsafeUrl":
      return {
        kind: "unsafe_url",
        reason: failure.error.reason,
        ...(failure.error.host === undefined ? {} : { host: failure.error.host }),
        ...(failure.error.address === undefined ? {} : { address: failure.error.address })
      }
    case "HttpStatus":
      return { kind: "http_status", status: failure.statusCode }
    case "Timeout":
      return { kind: "timeout", seconds: attemptTimeoutMs / 1000 }
    case "Unreachable":
      return { kind: "unreachable", cause: failure.detail }
    case "SecretUnreadable":
      return { kind: "signing_secret_unreadable" }
  }
}

/** A failure as stored in the delivery log: `{ code, details, platform_code, retryable }`. */
export const storedError = (failure: DeliveryFailure): StoredDeliveryError => {
  const error = failureError(failure)
  return {
    code: error.code as StoredDeliveryError["code"],
    details: failureData(failure),
    platform_code: null,
    retryable: error.retryable ?? ErrorCatalog[error.code].retryable
  }
}

/** Rebuilds a failure from its stored facts. */
const failureFromData = (data: DeliveryFailureData): DeliveryFailure => {
  switch (data.kind) {
    case "unsafe_url":
      return {
        _tag: "UnsafeUrl",
        error: new UnsafeUrl({
          reason: data.reason as UnsafeUrl["reason"],
          ...(data.host === undefined ? {} : { host: data.host }),
          ...(data.address === undefined ? {} : { address: data.address })
        })
      }
    case "http_status":
      return { _tag: "HttpStatus", statusCode: data.status }
    case "timeout":
      return { _tag: "Timeout" }
    case "unreachable":
      return { _tag: "Unreachable", detail: data.cause }
    case "signing_secret_unreadable":
      return { _tag: "SecretUnreadable" }
  }
}

/** A stored attempt error in the shared error shape, in `locale`, with today's catalog words and docs address. */
export const renderStoredError = (error: StoredDeliveryError, locale: Locale, publicBaseUrl: string): ErrorItem =>
  renderError(failureError(failureFromData(error.details)), locale, publicBaseUrl)

/** A failure as the error of a test result, in the shared error shape. */
export const failureError = (failure: DeliveryFailure): PostwireError => {
  switch (failure._tag) {
    case "UnsafeUrl":
      return invalidUrl(describeUnsafeUrl(failure.error))
    case "HttpStatus":
      return new PostwireError({
        code: "webhook_delivery_failed",
        details: { detail: ErrorDetail.reason("answered_http_status", { status: failure.statusCode }) }
      })
    case "Timeout":
      return new PostwireError({
        code: "webhook_delivery_failed",
        details: { detail: ErrorDetail.reason("no_answer_within", { seconds: attemptTimeoutMs / 1000 }) }
      })
    case "Unreachable":
      return new PostwireError({
        code: "webhook_delivery_failed",
        // A system code (`ECONNREFUSED`) reads the same in both languages; a system's sentence does not.
        details: {
          detail: /^[A-Z][A-Z0-9_]+$/.test(failure.detail)
            ? ErrorDetail.reason("could_not_connect_because", { cause: failure.detail })
            : ErrorDetail.reason("could_not_connect")
        }
      })
    case "SecretUnreadable":
      return new PostwireError({
        code: "webhook_delivery_failed",
        details: { detail: ErrorDetail.reason("signing_secret_unreadable") }
      })
  }
}

/** An endpoint URL's check for a delivery: where it may connect, or why it may not. */
export type CheckedTarget = Result.Result<DeliveryTarget, UnsafeUrl>

/**
 * Checks an endpoint URL for delivery under the current settings (resolving its name once).
 * The dispatcher checks each URL of a batch once and hands the answer to {@link deliverEvent}.
 */
export const checkTarget = (url: string): Effect.Effect<CheckedTarget, never, WebhookSettings | Resolver> =>
  WebhookSettings.use((settings) =>
    Effect.result(checkDeliveryAddress(url, { allowLoopback: settings.allowLoopback }))
  )

/** The longest duration the delivery log holds (a 32-bit integer of milliseconds, about 24 days). */
const longestDurationMs = 2_147_483_647

/**
 * How long an attempt took by the clock: never negative, never more than the log holds. A wall
 * clock set back or forward during an attempt (an NTP step) must not cost the attempt its record.
 */
const attemptDuration = (started: number, ended: number) => Math.min(Math.max(0, ended - started), longestDurationMs)

/**
 * One delivery attempt of `body` to an endpoint: checks the URL again (a name may now resolve
 * to a private address) unless `checked` is this URL's check made just before, signs with the
 * current time, POSTs to the checked addresses only, and waits at most 10 seconds. Success is
 * any 2xx answer. Never fails: a failure is described.
 */
export const deliverEvent = Effect.fnUntraced(function* (
  endpoint: Pick<WebhookEndpointRecord, "id" | "workspaceId" | "url" | "secret" | "previousSecret" | "previousSecretExpiresAt">,
  eventId: Id.EventId,
  body: string,
  checked?: CheckedTarget
): Effect.fn.Return<DeliveryAttempt, never, WebhookTransport | WebhookSettings | Resolver | CredentialsCipher> {
  const settings = yield* WebhookSettings
  const transport = yield* WebhookTransport
  const cipher = yield* CredentialsCipher
  const started = yield* now
  const finish = (statusCode: number | null, failure: DeliveryFailure | null, responseBody: string | null = null) =>
    Effect.map(now, (ended): DeliveryAttempt => ({
      at: started,
      delivered: failure === null,
      statusCode,
      responseBody,
      durationMs: attemptDuration(started, ended),
      failure
    }))
  // The stored secrets opened. Without the current one nothing is sent; a previous one that no
  // longer opens just stops signing.
  const [current, ...previous] = signingSecrets(endpoint, started).map((stored) => WebhookSecrets.open(cipher, endpoint, stored))
  if (current === undefined || Option.isNone(current)) {
    yield* Effect.logWarning("a webhook signing secret does not open with any listed master secret", { endpoint_id: endpoint.id })
    return yield* finish(null, { _tag: "SecretUnreadable" })
  }
  const secrets = [current.value, ...previous.flatMap((opened) => (Option.isSome(opened) ? [opened.value] : []))]
  const check = checked ?? (yield* checkTarget(endpoint.url))
  if (check._tag === "Failure") return yield* finish(null, { _tag: "UnsafeUrl", error: check.failure })
  const target = check.success
  const headers = {
    "content-type": "application/json",
    "user-agent": "Postwire-Webhooks/1",
    [signatureHeaderName]: signatureHeader(secrets, Math.floor(started / 1000), body),
    [eventIdHeaderName]: eventId
  }
  const answer = yield* transport
    .send({
      url: target.url,
      addresses: target.addresses,
      headers,
      body,
      policy: settings.allowLoopback ? "loopback-allowed" : "public-only"
    })
    .pipe(Effect.timeoutOption(attemptTimeoutMs), Effect.result)
  if (answer._tag === "Failure") return yield* finish(null, { _tag: "Unreachable", detail: answer.failure.detail })
  if (Option.isNone(answer.success)) return yield* finish(null, { _tag: "Timeout" })
  const { statusCode, body: answered } = answer.success.value
  return yield* finish(statusCode, statusCode >= 200 && statusCode < 300 ? null : { _tag: "HttpStatus", statusCode }, answered)
},
  // A span only while tracing is on: a traced `Effect.fn` captures a stack trace and makes a
  // span on every delivery, even with tracing off.
  Spans.withSpan("webhooks.deliverEvent")
)

/** Placeholder `data` of each event type for the test event, shaped like the real one. */
const sampleData = Effect.fn("webhooks.sampleData")(function* (type: Webhook.WebhookEventType, at: number) {
  const ids = yield* Ids
  const when = formatInstant(at)
  const post = { post_id: yield* ids.make("post") }
  // The sample names a served platform: the first of the registry's.
  const platform = (yield* EngineConfig).platforms.keys().next().value ?? builtinPlatforms[0]
  const target = { ...post, target_id: yield* ids.make("target"), platform }
  const account = { account_id: yield* ids.make("account"), profile_id: yield* ids.make("profile"), platform }
  switch (type) {
    case "post.scheduled":
      return { ...post, scheduled_at: formatInstant(at + 3_600_000) }
    case "post.awaiting_approval":
      return { ...post, approval_id: yield* ids.make("approval"), approval_url: null, expires_at: when }
    case "post.approved":
      return { ...post, approval_id: yield* ids.make("approval"), decided_at: when }
    case "post.rejected":
      return { ...post, approval_id: yield* ids.make("approval"), decided_at: when, reason: null }
    case "post.publishing":
      return { ...target }
    case "post.published":
      return { ...target, permalink: "https://example.com/p/test", published_at: when }
    case "post.failed": {
      const settings = yield* EngineConfig
      const error = renderError(new PostwireError({ code: "platform_unavailable", targetId: target.target_id }), "en", settings.publicBaseUrl)
      return { ...target, error }
    }
    case "account.connected":
    case "account.disconnected":
      return { ...account, handle: "test-account" }
    case "account.needs_reconnect":
      return { ...account, handle: "test-account", reason: "token_expired" }
    case "comment.created":
      return { ...target, comment_id: "comment_test", text: "Test comment", created_at: when }
    case "webhook_endpoint.disabled":
      return {
        endpoint_id: yield* ids.make("webhook"),
        url: "https://hooks.example.com/postwire",
        disabled_reason: "delivery_failed",
        disabled_at: when,
        failing_since: formatInstant(at - 3 * 24 * 3_600_000)
      }
  }
})

/** What a test delivery did; `failure` is why it was not delivered (the server renders it as `error`). */
export interface TestOutcome {
  readonly event_id: string
  readonly type: Webhook.WebhookEventType
  readonly delivered: boolean
  readonly status_code: number | null
  readonly duration_ms: number
  readonly failure: PostwireError | null
}

/**
 * Sends one synthetic event of the endpoint's first subscribed type now, marked `"test": true`,
 * and says what happened. It goes through the same checks, signature and limits as a real
 * delivery, works on a disabled endpoint too, and changes nothing stored.
 */
export const testEndpoint = Effect.fn("webhooks.test")(function* (caller: Caller, id: Id.WebhookId) {
  const store = yield* WebhookStore
  const found = yield* store.getEndpoint(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* notFound()
  yield* refuseTestKeyInLiveWorkspace(caller)
  const endpoint = found.value
  const type = endpoint.events[0] as Webhook.WebhookEventType
  const at = yield* now
  const event: OutboxEvent = {
    id: yield* Ids.use((ids) => ids.make("event")),
    workspaceId: caller.workspaceId,
    type,
    createdAt: at,
    livemode: caller.kind === "live",
    data: yield* sampleData(type, at)
  }
  const attempt = yield* deliverEvent(endpoint, event.id, eventBody(event, yield* CredentialsCipher, endpoint, { test: true }))
  return {
    event_id: event.id,
    type,
    delivered: attempt.delivered,
    status_code: attempt.statusCode,
    duration_ms: attempt.durationMs,
    failure: attempt.failure === null ? null : failureError(attempt.failure)
  } satisfies TestOutcome
})
