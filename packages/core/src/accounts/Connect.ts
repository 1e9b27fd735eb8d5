/**
 * Connecting accounts: the hosted connect link and everything after it.
 *
 * 1. `POST /v1/accounts/connect` makes a single-use link (30 minutes): {@link createConnectLink}.
 * 2. The person opens it; Postwire's page says who asks ({@link loadConnectPage}), then sends the
 *    person to the platform with a fresh `state` bound to the link and a PKCE verifier kept
 *    sealed on the server ({@link beginAuthorization}).
 * 3. The platform calls back: the code is exchanged for tokens and identities
 *    ({@link completeCallback}); a platform whose consent may connect several accounts
 *    (`capabilities.choosesAccounts`: Facebook Pages) first lets the person choose ({@link chooseAccounts}).
 * 4. Each identity becomes an account, or renews the account that already has it in the
 *    workspace (same `acc_` id), with `account.connected`, in one transaction that also uses the
 *    link up.
 *
 * Disconnecting ({@link disconnectAccount}), Meta's deauthorization ({@link deauthorize}) and
 * reconnect links ({@link createReconnectLink}) live here too. Tokens never leave the sealed
 * form except to go to the `AccountConnector`.
 *
 * @since 0.2.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import {
  type Account,
  ErrorDetail,
  formatInstant,
  type Locale,
  type Platform,
  displayNameOf,
  PostwireError
} from "@postwire/domain"
import type { Caller } from "../Caller.ts"
import { EngineConfig, notServed } from "../EngineConfig.ts"
import { hashSecret, Ids } from "../ids/Ids.ts"
import * as PostEvents from "../posts/PostEvents.ts"
import { failureOf } from "../posts/TargetErrors.ts"
import { derivePostStatus, move } from "../posts/TargetStatus.ts"
import { accountContext, CredentialsCipher } from "../secrets/CredentialsCipher.ts"
import type { AccountRecord, ProfileRecord } from "../store/AccountStore.ts"
import type { OutboxEvent } from "../store/Outbox.ts"
import type { PostAggregate, TargetRecord } from "../store/PostStore.ts"
import type { WorkspaceRecord } from "../store/WorkspaceStore.ts"
import { Store } from "../store/Store.ts"
import * as AccountEvents from "./AccountEvents.ts"
import {
  AccountConnector,
  type BeginAnswer,
  type ConnectTraits,
  type ConnectedIdentity,
  type ConnectFailure,
  type ConnectFormField
} from "./AccountConnector.ts"
import { safeAvatarUrl, viewAccount } from "./Accounts.ts"
import {
  type AccountConnectionRecord,
  type ConnectedAccount,
  type ConnectLinkRecord,
  ConnectStore
} from "./ConnectStore.ts"
import { checkRedirectUrl } from "../urls/RedirectAllowList.ts"
import { nextRefreshAt } from "./TokenRenewal.ts"

/** How long a connect link works. */
export const linkLifetimeMs = 30 * 60 * 1000

const now = Effect.clockWith((c) => c.currentTimeMillis)

const notFound = (resource: ErrorDetail.Resource, field?: string) =>
  new PostwireError({ code: "not_found", ...(field === undefined ? {} : { field }), details: { resource: ErrorDetail.resource(resource) } })

/** The address of a connect link. */
export const connectUrl = (publicBaseUrl: string, token: string): string => `${publicBaseUrl.replace(/\/$/, "")}/connect/${token}`

/** Postwire's callback address for a platform, as registered with the platform's app. */
export const callbackUrl = (publicBaseUrl: string, platform: Platform): string =>
  `${publicBaseUrl.replace(/\/$/, "")}/connect/callback/${platform}`

/** What the connect flow asks of a platform (its plugin's declarations); nothing when the connector says nothing. */
const traitsOf = (connector: AccountConnector["Service"], platform: Platform): ConnectTraits =>
  connector.traits?.(platform) ?? { choosesAccounts: false, signsDeauthorization: false }

/** The platform's name for people: its plugin's `displayName`. */
const platformNameOf = (platform: Platform) =>
  EngineConfig.useSync((settings) => settings.platforms.get(platform)?.displayName ?? displayNameOf(platform))

const linkContext = (link: Pick<ConnectLinkRecord, "workspaceId" | "id">) => `connect/${link.workspaceId}/${link.id}`

const requireWorkspace = Effect.fn("connect.workspace")(function* (workspaceId: Id.WorkspaceId) {
  const store = yield* Store
  const found = yield* store.getWorkspace(workspaceId)
  if (Option.isNone(found)) return yield* Effect.fail(notFound("workspace"))
  return found.value
})

/** Fails with `platform_not_configured` naming the settings the platform still needs. */
const checkConfigured = Effect.fn("connect.configured")(function* (platform: Platform, sandbox: boolean) {
  const served = yield* EngineConfig
  if (!served.platforms.has(platform)) return yield* Effect.fail(notServed(served, platform))
  const connector = yield* AccountConnector
  const missing = connector.configured(platform, sandbox)
  if (missing.length === 0) return
  return yield* Effect.fail(
    new PostwireError({
      code: "platform_not_configured",
      field: "platform",
      details: { platform: displayNameOf(platform), settings: missing.join(", ") }
    })
  )
})

/** Stores a new link and returns it as the API shows it. */
const issueLink = Effect.fn("connect.issueLink")(function* (
  caller: Caller,
  fields: Pick<ConnectLinkRecord, "profileId" | "platform" | "sandbox" | "redirectUrl" | "accountId">
) {
  const connections = yield* ConnectStore
  const settings = yield* EngineConfig
  const at = yield* now
  const id = yield* Ids.use((ids) => ids.make("connectLink"))
  const token = yield* Ids.use((ids) => ids.secret(32))
  const link: ConnectLinkRecord = {
    ...fields,
    id,
    workspaceId: caller.workspaceId,
    tokenHash: hashSecret(token),
    stateHash: null,
    codeVerifier: null,
    pendingChoice: null,
    expiresAt: at + linkLifetimeMs,
    completedAt: null,
    accountIds: [],
    createdBy: `key:${caller.keyId}`,
    createdAt: at
  }
  yield* connections.createLink(link)
  return {
    url: connectUrl(settings.publicBaseUrl, token),
    expires_at: formatInstant(link.expiresAt),
    profile_id: link.profileId,
    platform: link.platform,
    sandbox: link.sandbox,
    account_id: link.accountId
  } satisfies Account.ConnectLink
})

/**
 * `POST /v1/accounts/connect`: a link that connects an account into a profile. A test key, or
 * `sandbox: true`, connects a sandbox account through the simulated consent page.
 */
export const createConnectLink = Effect.fn("connect.createLink")(function* (
  caller: Caller,
  request: Account.ConnectAccountRequest
) {
  const store = yield* Store
  const workspace = yield* requireWorkspace(caller.workspaceId)
  const profile = yield* store.getProfile(caller.workspaceId, request.profile_id)
  if (Option.isNone(profile)) return yield* Effect.fail(notFound("profile", "profile_id"))
  yield* checkRedirectUrl(workspace, request.redirect_url)
  const sandbox = request.sandbox === true || caller.kind === "test"
  yield* checkConfigured(request.platform, sandbox)
  return yield* issueLink(caller, {
    profileId: request.profile_id,
    platform: request.platform,
    sandbox,
    redirectUrl: request.redirect_url ?? null,
    accountId: null
  })
})

/** `POST /v1/accounts/{id}/reconnect`: a link that connects the same platform account again. */
export const createReconnectLink = Effect.fn("connect.createReconnectLink")(function* (
  caller: Caller,
  accountId: Id.AccountId,
  request: Account.ReconnectAccountRequest
) {
  const store = yield* Store
  const workspace = yield* requireWorkspace(caller.workspaceId)
  const found = yield* store.getAccount(caller.workspaceId, accountId)
  if (Option.isNone(found)) return yield* Effect.fail(notFound("account"))
  const account = found.value
  if (caller.kind === "test" && !account.sandbox) {
    return yield* Effect.fail(new PostwireError({ code: "test_key_live_account", field: "id" }))
  }
  yield* checkRedirectUrl(workspace, request.redirect_url)
  yield* checkConfigured(account.platform, account.sandbox)
  return yield* issueLink(caller, {
    profileId: account.profileId,
    platform: account.platform,
    sandbox: account.sandbox,
    redirectUrl: request.redirect_url ?? null,
    accountId: account.id
  })
})

// ---------------------------------------------------------------------------------------------
// The page and the callback
// ---------------------------------------------------------------------------------------------

/** What the connect page shows for a token. */
export type ConnectPage =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Expired"; readonly link: ConnectLinkRecord }
  | { readonly _tag: "Used"; readonly link: ConnectLinkRecord }
  | {
      readonly _tag: "Open"
      readonly link: ConnectLinkRecord
      readonly workspace: WorkspaceRecord
      readonly profile: ProfileRecord | undefined
      /** A reconnect link: the account it renews. */
      readonly account: AccountRecord | undefined
      /** The platform's name for people (its plugin's `displayName`). */
      readonly platformName: string
      /** A new connect of a platform whose person chooses among several accounts: the picker's words (or generic ones). */
      readonly chooser: ChooserInfo | undefined
    }

/** The account picker of a platform that has one (`capabilities.choosesAccounts`). */
export interface ChooserInfo {
  readonly platformName: string
  /** The plugin's words; absent: generic words naming the platform. */
  readonly words: ConnectTraits["chooser"]
}

/** The picker of `platform`, when its person chooses among several accounts. */
const chooserOf = Effect.fn("connect.chooserOf")(function* (platform: Platform) {
  const connector = yield* AccountConnector
  const traits = traitsOf(connector, platform)
  if (!traits.choosesAccounts) return undefined
  return { platformName: yield* platformNameOf(platform), words: traits.chooser } satisfies ChooserInfo
})

/** Reads the link a token names, for the connect page. */
export const loadConnectPage = Effect.fn("connect.loadPage")(function* (token: string) {
  const connections = yield* ConnectStore
  const store = yield* Store
  const found = yield* connections.findLinkByToken(hashSecret(token))
  if (Option.isNone(found)) return { _tag: "Unknown" } as ConnectPage
  const link = found.value
  if (link.completedAt !== null) return { _tag: "Used", link } as ConnectPage
  if (link.expiresAt <= (yield* now)) return { _tag: "Expired", link } as ConnectPage
  const workspace = yield* store.getWorkspace(link.workspaceId)
  if (Option.isNone(workspace)) return { _tag: "Unknown" } as ConnectPage
  const profile = yield* store.getProfile(link.workspaceId, link.profileId)
  const account = link.accountId === null ? Option.none() : yield* store.getAccount(link.workspaceId, link.accountId)
  return {
    _tag: "Open",
    link,
    workspace: workspace.value,
    profile: Option.getOrUndefined(profile),
    account: Option.getOrUndefined(account),
    platformName: yield* platformNameOf(link.platform),
    chooser: link.accountId === null ? yield* chooserOf(link.platform) : undefined
  } as ConnectPage
})

/** The fields the link's platform asks for on the connect page; none for a sandbox link. */
export const connectForm = Effect.fn("connect.form")(function* (link: Pick<ConnectLinkRecord, "platform" | "sandbox">) {
  const connector = yield* AccountConnector
  return connector.form?.(link.platform, link.sandbox) ?? []
})

/** The longest value of a form field unless the field says otherwise. */
export const defaultFieldMaxLength = 512

/** What the person typed, checked against the platform's form. */
export type CheckedFields =
  | { readonly _tag: "Valid"; readonly fields: Readonly<Record<string, string>> }
  | { readonly _tag: "Invalid"; readonly error: PostwireError }

const fieldError = (name: string, detail: ReturnType<typeof ErrorDetail.reason>) =>
  new PostwireError({ code: "invalid_request", field: `fields.${name}`, details: { detail } })

/** An http(s) address from what was typed: a bare host (`mastodon.social`) is read as https. */
const readAddress = (typed: string): { readonly _tag: "Ok"; readonly url: string } | { readonly _tag: "Bad"; readonly detail: ReturnType<typeof ErrorDetail.reason> } => {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(typed) ? typed : `https://${typed}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    return { _tag: "Bad", detail: ErrorDetail.reason("url_not_absolute") }
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { _tag: "Bad", detail: ErrorDetail.reason("url_not_https") }
  if (url.hostname === "") return { _tag: "Bad", detail: ErrorDetail.reason("url_not_absolute") }
  if (url.username !== "" || url.password !== "") return { _tag: "Bad", detail: ErrorDetail.reason("url_credentials") }
  const href = url.href
  return { _tag: "Ok", url: url.pathname === "/" && url.search === "" && url.hash === "" ? href.replace(/\/$/, "") : href }
}

/**
 * Checks the values of a connect form: every required field present, none longer than its
 * `maxLength`, `url` fields http(s) addresses (normalized), no name the form does not have.
 * Text and addresses are trimmed; passwords are taken as typed. A refusal is 400
 * `invalid_request` at `fields.<name>` (every problem in `issues`); it never carries a value.
 */
export const checkFields = (form: ReadonlyArray<ConnectFormField>, given: Readonly<Record<string, string>>): CheckedFields => {
  const problems: Array<PostwireError> = []
  const fields: Record<string, string> = {}
  for (const name of Object.keys(given)) {
    if (!form.some((f) => f.name === name)) problems.push(fieldError(name, ErrorDetail.reason("unknown_field")))
  }
  for (const field of form) {
    const raw = Object.hasOwn(given, field.name) ? given[field.name] : undefined
    const value = raw === undefined ? "" : field.kind === "password" ? raw : raw.trim()
    if (value === "") {
      if (field.required !== false) problems.push(fieldError(field.name, ErrorDetail.reason("required")))
      continue
    }
    const max = field.maxLength ?? defaultFieldMaxLength
    if (value.length > max) {
      problems.push(fieldError(field.name, ErrorDetail.reason("max_length", { max })))
      continue
    }
    if (field.kind === "url") {
      const address = readAddress(value)
      if (address._tag === "Bad") problems.push(fieldError(field.name, address.detail))
      else fields[field.name] = address.url
      continue
    }
    fields[field.name] = value
  }
  if (problems.length === 0) return { _tag: "Valid", fields }
  const [first] = problems
  return {
    _tag: "Invalid",
    error: new PostwireError({ code: "invalid_request", field: first!.field, details: first!.details, issues: problems })
  }
}

/**
 * What the connect session keeps sealed until the callback: the PKCE verifier, and the `memo`
 * of a plugin's `begin`. A verifier alone is stored as it always was (links started before memos
 * existed still finish); with a memo, as JSON (a verifier never starts with `{`).
 */
const sessionSecret = (codeVerifier: string, memo: string | undefined) =>
  memo === undefined ? codeVerifier : JSON.stringify({ v: codeVerifier, m: memo })

const openSession = (opened: string): { readonly codeVerifier: string; readonly memo: string | undefined } => {
  if (!opened.startsWith("{")) return { codeVerifier: opened, memo: undefined }
  const parsed = JSON.parse(opened) as { v: string; m: string }
  return { codeVerifier: parsed.v, memo: parsed.m }
}

/** What starting a connect from its link led to. */
export type Begun =
  | Exclude<ConnectPage, { readonly _tag: "Open" }>
  | {
      /** The platform's form must be filled first (again, with `error`, when the values were refused). */
      readonly _tag: "AskFields"
      readonly page: Extract<ConnectPage, { readonly _tag: "Open" }>
      readonly form: ReadonlyArray<ConnectFormField>
      /** The values to show again: text and addresses, never a password. */
      readonly values: Readonly<Record<string, string>>
      readonly error: PostwireError | undefined
    }
  | { readonly _tag: "Redirect"; readonly link: ConnectLinkRecord; readonly url: string }
  /** `begin` connected without a redirect (or asks the person to choose). */
  | { readonly _tag: "Done"; readonly outcome: ConnectOutcome }

/**
 * Starts the platform's authorization for an open link: a new `state` (the previous attempt's
 * callback then finds nothing) and PKCE verifier, and where to send the person. A platform with
 * a connect form needs its `fields` first (`AskFields` until they are valid); its `begin` may
 * redirect (its `memo` sealed with the session, for `exchange`) or connect at once. A failure
 * of `begin` on a form platform shows the form again with the error (the link stays open);
 * otherwise it fails with the `ConnectFailure`, as `authorizationUrl` did.
 */
export const beginAuthorization = Effect.fn("connect.begin")(function* (
  token: string,
  given?: Readonly<Record<string, string>> | undefined
) {
  const page = yield* loadConnectPage(token)
  if (page._tag !== "Open") return page as Begun
  const connections = yield* ConnectStore
  const connector = yield* AccountConnector
  const cipher = yield* CredentialsCipher
  const settings = yield* EngineConfig
  const { link } = page
  const form = connector.form?.(link.platform, link.sandbox) ?? []
  const kept = (values: Readonly<Record<string, string>>) =>
    Object.fromEntries(
      form
        .filter((f) => f.kind !== "password" && typeof values[f.name] === "string")
        .map((f) => [f.name, values[f.name]!.trim().slice(0, 8192)])
    )
  const ask = (values: Readonly<Record<string, string>>, error: PostwireError | undefined): Begun => ({
    _tag: "AskFields",
    page,
    form,
    values: kept(values),
    error
  })
  if (form.length > 0 && given === undefined) return ask({}, undefined)
  const checked = checkFields(form, given ?? {})
  if (checked._tag === "Invalid") return ask(given ?? {}, checked.error)
  const state = yield* Ids.use((ids) => ids.secret(32))
  const codeVerifier = yield* Ids.use((ids) => ids.secret(48))
  const request = {
    platform: link.platform,
    sandbox: link.sandbox,
    state,
    redirectUri: callbackUrl(settings.publicBaseUrl, link.platform),
    codeVerifier
  }
  const begin: Effect.Effect<BeginAnswer, ConnectFailure> =
    connector.begin === undefined
      ? Effect.map(connector.authorizationUrl(request), (url): BeginAnswer => ({ _tag: "Redirect", url }))
      : connector.begin({ ...request, fields: checked.fields })
  const begun = yield* Effect.result(begin)
  if (begun._tag === "Failure") {
    const failure = begun.failure
    // Without a form nothing can be typed again: the page reports the failure, as before.
    if (form.length === 0) return yield* Effect.fail(failure)
    // Never the values: a refused password must not reach a log.
    yield* Effect.logInfo("connect start refused", { code: failure.code, platform_code: failure.platformCode, link_id: link.id })
    return ask(given ?? {}, errorOfFailure(failure))
  }
  const answer = begun.success
  const started = yield* connections.startAuthorization(
    link.workspaceId,
    link.id,
    hashSecret(state),
    cipher.seal(sessionSecret(codeVerifier, answer._tag === "Redirect" ? answer.memo : undefined), linkContext(link))
  )
  if (!started) return { _tag: "Used", link } as Begun
  if (answer._tag === "Redirect") return { _tag: "Redirect", link, url: answer.url } as Begun
  return { _tag: "Done", outcome: yield* afterIdentities(link, state, answer.identities) } as Begun
})

/** The query of a platform's callback. */
export interface CallbackQuery {
  readonly code?: string | undefined
  readonly state?: string | undefined
  readonly error?: string | undefined
  /** The authorization server's `iss` (RFC 9207), when the platform sends it. */
  readonly iss?: string | undefined
}

/** A Page (or other account) the person may pick before it is connected. */
export interface Choice {
  readonly id: string
  readonly handle: string
  readonly displayName: string | null
  readonly avatarUrl: string | null
}

/** How a connect ended, for the page and the redirect. */
export type ConnectOutcome =
  | { readonly _tag: "BadState" }
  | { readonly _tag: "Connected"; readonly link: ConnectLinkRecord; readonly accounts: ReadonlyArray<AccountRecord> }
  | {
      readonly _tag: "Choose"
      readonly link: ConnectLinkRecord
      readonly state: string
      readonly choices: ReadonlyArray<Choice>
      /** The picker's words. */
      readonly chooser: ChooserInfo
    }
  | {
      readonly _tag: "Failed"
      readonly link: ConnectLinkRecord
      readonly error: PostwireError
      /** The link still works: the person may try again from it. */
      readonly canRetry: boolean
    }

const failed = (link: ConnectLinkRecord, error: PostwireError, canRetry = false): ConnectOutcome => ({
  _tag: "Failed",
  link,
  error,
  canRetry
})

/**
 * A connector failure as the page and the redirect show it. A failure whose `details.field`
 * names a form field (`fields.server`: `begin` could not reach the typed address) is shown at
 * that field.
 */
const errorOfFailure = (failure: ConnectFailure) => {
  const { field, ...details } = failure.details ?? {}
  return new PostwireError({
    code: failure.code,
    platformCode: failure.platformCode,
    ...(typeof field === "string" ? { field } : {}),
    details: failure.details === undefined ? undefined : details,
    retryable: failure.retryable
  })
}

/** The open link a callback's `state` belongs to, or why there is none. */
const linkOfState = Effect.fn("connect.linkOfState")(function* (platform: Platform, state: string | undefined) {
  const connections = yield* ConnectStore
  if (state === undefined || state === "" || state.length > 512) return { _tag: "BadState" } as const
  const found = yield* connections.findLinkByState(hashSecret(state))
  if (Option.isNone(found) || found.value.platform !== platform) return { _tag: "BadState" } as const
  const link = found.value
  if (link.completedAt !== null) return { _tag: "Done", outcome: failed(link, new PostwireError({ code: "connect_link_used" })) } as const
  if (link.expiresAt <= (yield* now)) {
    yield* connections.closeLink(link.workspaceId, link.id, yield* now)
    return { _tag: "Done", outcome: failed(link, new PostwireError({ code: "connect_link_expired" })) } as const
  }
  return { _tag: "Open", link } as const
})

/** Closes the link and reports the failure (the person must ask for a new link). */
const failForGood = Effect.fn("connect.failForGood")(function* (link: ConnectLinkRecord, error: PostwireError) {
  const connections = yield* ConnectStore
  yield* connections.closeLink(link.workspaceId, link.id, yield* now)
  yield* Effect.logInfo("connect failed", { code: error.code, platform_code: error.platformCode, link_id: link.id })
  return failed(link, error)
})

/**
 * `GET /connect/callback/{platform}`: the platform's answer. Exchanges the code, then connects
 * the identities, or (Facebook) asks which Pages to connect.
 */
export const completeCallback = Effect.fn("connect.callback")(function* (platform: Platform, query: CallbackQuery) {
  const found = yield* linkOfState(platform, query.state)
  if (found._tag === "BadState") return { _tag: "BadState" } as ConnectOutcome
  if (found._tag === "Done") return found.outcome
  const { link } = found
  if (query.error !== undefined && query.error !== "") {
    return yield* failForGood(link, new PostwireError({ code: "connect_refused", platformCode: query.error.slice(0, 100) }))
  }
  if (query.code === undefined || query.code === "") {
    return yield* failForGood(link, new PostwireError({ code: "connect_failed", platformCode: "missing_code" }))
  }
  const connector = yield* AccountConnector
  const cipher = yield* CredentialsCipher
  const settings = yield* EngineConfig
  const sealed = link.codeVerifier === null ? Option.none<string>() : cipher.open(link.codeVerifier, linkContext(link))
  if (Option.isNone(sealed)) return { _tag: "BadState" } as ConnectOutcome
  const session = openSession(sealed.value)
  const exchanged = yield* connector
    .exchange({
      platform,
      sandbox: link.sandbox,
      code: query.code,
      redirectUri: callbackUrl(settings.publicBaseUrl, platform),
      codeVerifier: session.codeVerifier,
      ...(session.memo === undefined ? {} : { memo: session.memo }),
      ...(query.iss === undefined || query.iss === "" ? {} : { issuer: query.iss.slice(0, 2048) })
    })
    .pipe(Effect.result)
  if (exchanged._tag === "Failure") {
    const failure = exchanged.failure
    // A platform that is down may work in a minute: the link stays open for another try.
    if (failure.retryable) {
      yield* Effect.logWarning("connect exchange failed, retryable", { code: failure.code, platform_code: failure.platformCode })
      return failed(link, errorOfFailure(failure), true)
    }
    return yield* failForGood(link, errorOfFailure(failure))
  }
  return yield* afterIdentities(link, query.state!, exchanged.success)
})

/**
 * The identities a platform gave (its callback's exchange, or `begin` without a redirect):
 * connected, or (Facebook) offered to choose from first.
 */
const afterIdentities = Effect.fn("connect.afterIdentities")(function* (
  link: ConnectLinkRecord,
  state: string,
  identities: ReadonlyArray<ConnectedIdentity>
) {
  const cipher = yield* CredentialsCipher
  if (identities.length === 0) {
    return yield* failForGood(link, new PostwireError({ code: "connect_refused", platformCode: "nothing_granted" }))
  }
  const chooser = link.accountId === null ? yield* chooserOf(link.platform) : undefined
  if (chooser !== undefined) {
    const connections = yield* ConnectStore
    const sealed = cipher.seal(JSON.stringify(identities), `${linkContext(link)}/choice`)
    const kept = yield* connections.savePendingChoice(link.workspaceId, link.id, sealed)
    if (!kept) return failed(link, new PostwireError({ code: "connect_link_used" }))
    return {
      _tag: "Choose",
      link,
      state,
      choices: identities.map((i) => ({
        id: i.platformAccountId,
        handle: i.handle,
        displayName: i.displayName,
        avatarUrl: safeAvatarUrl(i.avatarUrl)
      })),
      chooser
    } as ConnectOutcome
  }
  return yield* connectIdentities(link, identities)
})

/**
 * `POST /connect/callback/{platform}`: the accounts the person picked (Facebook Pages), by their
 * platform ids; none picked shows the picker again.
 */
export const chooseAccounts = Effect.fn("connect.chooseAccounts")(function* (
  platform: Platform,
  state: string | undefined,
  chosen: ReadonlyArray<string>
) {
  const found = yield* linkOfState(platform, state)
  if (found._tag === "BadState") return { _tag: "BadState" } as ConnectOutcome
  if (found._tag === "Done") return found.outcome
  const { link } = found
  const cipher = yield* CredentialsCipher
  const opened = link.pendingChoice === null ? Option.none<string>() : cipher.open(link.pendingChoice, `${linkContext(link)}/choice`)
  if (Option.isNone(opened)) return { _tag: "BadState" } as ConnectOutcome
  const identities = JSON.parse(opened.value) as ReadonlyArray<ConnectedIdentity>
  const picked = identities.filter((identity) => chosen.includes(identity.platformAccountId))
  if (picked.length === 0) {
    return {
      _tag: "Choose",
      link,
      state: state!,
      choices: identities.map((i) => ({ id: i.platformAccountId, handle: i.handle, displayName: i.displayName, avatarUrl: safeAvatarUrl(i.avatarUrl) })),
      chooser: (yield* chooserOf(link.platform)) ?? { platformName: yield* platformNameOf(link.platform), words: undefined }
    } as ConnectOutcome
  }
  return yield* connectIdentities(link, picked)
})

/** The event data of `account.connected`. */
const connectedEventData = (account: AccountRecord, connection: AccountConnectionRecord, renewed: boolean) => ({
  account_id: account.id,
  profile_id: account.profileId,
  platform: account.platform,
  handle: account.handle,
  display_name: connection.displayName,
  sandbox: account.sandbox,
  reconnected: renewed
})

/** Writes the identities as accounts (new, or renewing the one with the same identity) and uses the link up. */
const connectIdentities = Effect.fn("connect.connectIdentities")(function* (
  link: ConnectLinkRecord,
  identities: ReadonlyArray<ConnectedIdentity>
) {
  const store = yield* Store
  const connections = yield* ConnectStore
  const cipher = yield* CredentialsCipher
  const connector = yield* AccountConnector
  const at = yield* now
  const written: Array<ConnectedAccount> = []
  const events: Array<OutboxEvent> = []
  for (const identity of identities) {
    const existing = yield* connections.findConnectionByIdentity(
      link.workspaceId,
      identity.platform,
      link.sandbox,
      identity.platformAccountId
    )
    let previous: Option.Option<AccountRecord>
    if (link.accountId === null) {
      previous = Option.isSome(existing) ? yield* store.getAccount(link.workspaceId, existing.value.accountId) : Option.none()
    } else {
      // A reconnect link renews its account, and only with the same platform account.
      previous = yield* store.getAccount(link.workspaceId, link.accountId)
      const own = yield* connections.getConnection(link.workspaceId, link.accountId)
      const knownId = Option.isSome(own) ? own.value.externalId : Option.getOrNull(Option.map(previous, (a) => a.externalId))
      const takenByOther = Option.isSome(existing) && existing.value.accountId !== link.accountId
      if (Option.isNone(previous) || takenByOther || (knownId !== null && knownId !== identity.platformAccountId)) {
        return yield* failForGood(
          link,
          new PostwireError({
            code: "connect_wrong_account",
            details: {
              expected: `@${Option.match(previous, { onNone: () => "", onSome: (a) => a.handle.replace(/^@/, "") })}`,
              handle: `@${identity.handle.replace(/^@/, "")}`
            }
          })
        )
      }
    }
    const id = Option.isSome(previous) ? previous.value.id : yield* Ids.use((ids) => ids.make("account"))
    const account: AccountRecord = {
      ...(Option.isSome(previous)
        ? previous.value
        : {
            id,
            workspaceId: link.workspaceId,
            profileId: link.profileId,
            platform: identity.platform,
            sandbox: link.sandbox,
            dailyQuota: null,
            simulate: null,
            createdAt: at
          }),
      handle: identity.handle,
      status: "connected",
      credentials: cipher.seal(identity.credentials, accountContext(link.workspaceId, id)),
      externalId: identity.platformAccountId
    }
    const connection: AccountConnectionRecord = {
      workspaceId: link.workspaceId,
      accountId: id,
      platform: identity.platform,
      sandbox: link.sandbox,
      externalId: identity.platformAccountId,
      grantId: identity.grantId,
      displayName: identity.displayName,
      avatarUrl: safeAvatarUrl(identity.avatarUrl),
      scopes: identity.scopes,
      connectedAt: at,
      tokenExpiresAt: identity.accessTokenExpiresAt,
      refreshExpiresAt: identity.refreshTokenExpiresAt,
      privacyLevelOptions: identity.creatorInfo?.privacyLevelOptions ?? null,
      maxVideoPostDurationSec: identity.creatorInfo?.maxVideoPostDurationSec ?? null,
      refreshAt: nextRefreshAt(connector.renewal?.(identity.platform), at, identity.accessTokenExpiresAt),
      refreshFailures: 0,
      leaseOwner: null,
      leaseUntil: null,
      reconnectReason: null,
      disconnectedAt: null
    }
    const renewed = Option.isSome(previous)
    written.push({ mode: renewed ? "renew" : "insert", account, connection })
    events.push(
      yield* PostEvents.makeEvent(link.workspaceId, "account.connected", connectedEventData(account, connection, renewed), !link.sandbox, at)
    )
  }
  const completed = yield* connections.completeLink(link.workspaceId, link.id, at, written, events)
  if (!completed) return failed(link, new PostwireError({ code: "connect_link_used" }))
  yield* Effect.logInfo("accounts connected", { link_id: link.id, account_ids: written.map((w) => w.account.id).join(",") })
  return { _tag: "Connected", link, accounts: written.map((w) => w.account) } as ConnectOutcome
})

/**
 * Where the person returns after a connect: the link's `redirect_url` with `status=connected`
 * and `account_id` (comma-separated when several Pages were connected), or `status=error` and
 * `error=<code>`; `undefined` when the link has none.
 */
export const returnUrl = (outcome: ConnectOutcome): string | undefined => {
  if (outcome._tag === "BadState" || outcome._tag === "Choose") return undefined
  if (outcome.link.redirectUrl === null) return undefined
  const url = new URL(outcome.link.redirectUrl)
  if (outcome._tag === "Connected") {
    url.searchParams.set("status", "connected")
    url.searchParams.set("account_id", outcome.accounts.map((a) => a.id).join(","))
  } else {
    url.searchParams.set("status", "error")
    url.searchParams.set("error", outcome.error.code)
  }
  return url.toString()
}

// ---------------------------------------------------------------------------------------------
// Disconnecting
// ---------------------------------------------------------------------------------------------

/** Why an account was disconnected, as `account.disconnected` says. */
export type DisconnectReason = "api" | "deauthorized"

/** Fails the account's queued and scheduled targets at once: the account can no longer publish. */
const failWaitingTargets = Effect.fn("connect.failWaitingTargets")(function* (account: AccountRecord) {
  const store = yield* Store
  const connections = yield* ConnectStore
  const settings = yield* EngineConfig
  const postIds = yield* connections.postsWaitingOnAccount(account.workspaceId, account.id)
  for (const postId of postIds) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const found = yield* store.getPost(account.workspaceId, postId)
      if (Option.isNone(found)) break
      const aggregate: PostAggregate = found.value
      const at = yield* now
      const events: Array<OutboxEvent> = []
      const targets: Array<TargetRecord> = []
      let changed = false
      for (const target of aggregate.targets) {
        if (target.accountId !== account.id || (target.status !== "queued" && target.status !== "scheduled")) {
          targets.push(target)
          continue
        }
        const error = failureOf({ code: "token_expired", platformCode: "account_disconnected", retryable: false })
        const failedTarget: TargetRecord = move(target, "failed", { error, dueAt: null, leaseOwner: null, leaseUntil: null, updatedAt: at })
        targets.push(failedTarget)
        changed = true
        events.push(
          yield* PostEvents.makeEvent(
            account.workspaceId,
            "post.failed",
            PostEvents.failed(aggregate.post, failedTarget, error, settings.publicBaseUrl),
            !account.sandbox,
            at
          )
        )
      }
      if (!changed) break
      const next: PostAggregate = {
        ...aggregate,
        targets,
        post: {
          ...aggregate.post,
          status: derivePostStatus(targets.map((t) => t.status)),
          updatedAt: at,
          version: aggregate.post.version + 1
        }
      }
      const saved = yield* store.savePost(next, events).pipe(
        Effect.as(true),
        Effect.catchTag("VersionConflict", () => Effect.succeed(false))
      )
      if (saved) break
    }
  }
})

/**
 * Disconnects one account: revokes at the platform where it can (and where no other live
 * account shares the consent), erases the credentials, marks it `disconnected` with
 * `account.disconnected`, and fails its waiting targets. False when it was disconnected already.
 */
const disconnect = Effect.fn("connect.disconnect")(function* (
  account: AccountRecord,
  reason: DisconnectReason,
  revoke: boolean
) {
  const connections = yield* ConnectStore
  const connector = yield* AccountConnector
  const cipher = yield* CredentialsCipher
  if (account.status === "disconnected") return false
  const connection = yield* connections.getConnection(account.workspaceId, account.id)
  if (revoke && account.credentials !== null) {
    const shared = Option.isSome(connection)
      ? (yield* connections.findConnectionsByGrant(account.platform, connection.value.grantId)).filter(
          (c) => !(c.workspaceId === account.workspaceId && c.accountId === account.id)
        )
      : []
    const credentials = cipher.open(account.credentials, accountContext(account.workspaceId, account.id))
    if (shared.length === 0 && Option.isSome(credentials)) {
      const revoked = yield* connector
        .revoke({ platform: account.platform, sandbox: account.sandbox, credentials: credentials.value })
        .pipe(Effect.result)
      if (revoked._tag === "Failure") {
        // The account is disconnected all the same; the token dies with its lifetime.
        yield* Effect.logWarning("revoking at the platform failed", {
          account_id: account.id,
          code: revoked.failure.code,
          platform_code: revoked.failure.platformCode
        })
      } else {
        yield* Effect.logInfo("token revoked at the platform", { account_id: account.id, outcome: revoked.success._tag })
      }
    }
  }
  const at = yield* now
  const event = yield* AccountEvents.disconnected(account, reason, at)
  const changed = yield* connections.disconnectAccount(account.workspaceId, account.id, at, [event])
  if (changed) yield* failWaitingTargets(account)
  return changed
})

/** `DELETE /v1/accounts/{id}`: disconnects the account and returns it as it is now. */
export const disconnectAccount = Effect.fn("connect.disconnectAccount")(function* (
  caller: Caller,
  accountId: Id.AccountId,
  locale: Locale
) {
  const store = yield* Store
  const found = yield* store.getAccount(caller.workspaceId, accountId)
  if (Option.isNone(found)) return yield* Effect.fail(notFound("account"))
  if (caller.kind === "test" && !found.value.sandbox) {
    return yield* Effect.fail(new PostwireError({ code: "test_key_live_account", field: "id" }))
  }
  yield* disconnect(found.value, "api", true)
  const after = yield* store.getAccount(caller.workspaceId, accountId)
  return yield* viewAccount(Option.getOrElse(after, () => found.value), locale)
})

/**
 * A platform's deauthorization callback (Meta's): the person removed the app on the platform's
 * side. The signed request is verified with the app secret of `only`, or of each platform whose
 * plugin declares signed deauthorizations (`connect.deauthorization`: Facebook, Instagram,
 * Threads) and is configured; every live account of that consent, on each platform whose secret
 * verifies it (one Meta app may serve several), is disconnected (nothing to revoke: the platform
 * already did). Fails with `invalid_request` when no app's secret verifies it.
 */
export const deauthorize = Effect.fn("connect.deauthorize")(function* (signedRequest: string, only?: Platform) {
  const connector = yield* AccountConnector
  const connections = yield* ConnectStore
  const store = yield* Store
  const settings = yield* EngineConfig
  const candidates = Array.from(settings.platforms.keys()).filter(
    (p) => (only === undefined || p === only) && traitsOf(connector, p).signsDeauthorization && connector.configured(p, false).length === 0
  )
  let refusal: ConnectFailure | undefined
  let verifiedBy: Array<Platform> = []
  let disconnected = 0
  for (const platform of candidates) {
    const verified = yield* connector.verifyDeauthorization(platform, signedRequest).pipe(Effect.result)
    if (verified._tag === "Failure") {
      refusal = verified.failure
      continue
    }
    verifiedBy = [...verifiedBy, platform]
    const matching = yield* connections.findConnectionsByGrant(platform, verified.success.userId)
    for (const connection of matching) {
      const account = yield* store.getAccount(connection.workspaceId, connection.accountId)
      if (Option.isSome(account) && (yield* disconnect(account.value, "deauthorized", false))) disconnected++
    }
  }
  if (verifiedBy.length > 0) {
    yield* Effect.logInfo("deauthorization received", { platform: verifiedBy.join(","), accounts: disconnected })
    return { platform: verifiedBy[0]!, disconnected }
  }
  yield* Effect.logWarning("deauthorization refused", { platform_code: refusal?.platformCode ?? "no_signing_app" })
  return yield* Effect.fail(
    new PostwireError({
      code: "invalid_request",
      field: "signed_request",
      platformCode: refusal?.platformCode ?? "no_signing_app",
      details: { detail: refusal?.details?.detail ?? ErrorDetail.reason("signed_request_bad_signature") }
    })
  )
})

/** What the simulated consent page of `platform` shows: its name and, when several accounts may be allowed, the picker. */
export const consentInfo = Effect.fn("connect.consentInfo")(function* (platform: Platform) {
  return { platformName: yield* platformNameOf(platform), chooser: yield* chooserOf(platform) }
})

/**
 * `GET /connect/documents/{platform}/{name}`: a public document of a served platform's connect
 * side (atproto OAuth's client metadata), built for this server's public address; `undefined`
 * when the platform is not served or has no such document.
 */
export const publicDocument = Effect.fn("connect.publicDocument")(function* (platform: Platform, name: string) {
  const connector = yield* AccountConnector
  const settings = yield* EngineConfig
  if (!settings.platforms.has(platform) || connector.document === undefined) return undefined
  return connector.document(platform, name, settings.publicBaseUrl)
})

/** Whether `platform` takes deauthorization callbacks (its plugin declares signed ones). */
export const takesDeauthorization = Effect.fn("connect.takesDeauthorization")(function* (platform: Platform) {
  const connector = yield* AccountConnector
  const settings = yield* EngineConfig
  return settings.platforms.has(platform) && traitsOf(connector, platform).signsDeauthorization
})
