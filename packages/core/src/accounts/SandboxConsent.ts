/**
 * The simulated platform's consent step, so a sandbox connect runs the whole journey with no
 * platform app: the connector sends the person to `{public_url}/connect/sandbox/authorize?…`,
 * the service's page there shows a consent screen, and on "Allow" calls {@link issue} and
 * redirects to `redirect_uri?code=…&state=…` (on "Cancel": `?error=access_denied&state=…`),
 * exactly as a platform would. The sandbox `exchange` reads the code back with {@link read}.
 *
 * A code is signed with the server's secret, names the callback it was issued for, carries the
 * PKCE challenge and lives {@link codeLifetimeMs}. Single use is the connect link's job: the
 * service closes the link once its callback has run.
 *
 * @example
 * ```ts
 * import { SandboxConsent } from "@postwire/core"
 *
 * // the consent page, on "Allow"
 * const params = SandboxConsent.readAuthorizeParams(new URL(request.url).searchParams)
 * if (params._tag === "Valid") {
 *   const code = SandboxConsent.issue({
 *     secret, now: Date.now(), platform: params.platform, redirectUri: params.redirectUri,
 *     codeChallenge: params.codeChallenge, accounts: [{ handle: "sandbox_creator", displayName: "Sandbox Creator" }]
 *   })
 *   // redirect to SandboxConsent.callbackUrl(params, { code })
 * }
 * ```
 *
 * @since 0.2.0
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { Platform } from "@postwire/domain"
import { Schema } from "effect"
import * as Keyring from "../secrets/Keyring.ts"

/** How long a simulated authorization code may be exchanged: ten minutes, like most platforms. */
export const codeLifetimeMs = 10 * 60 * 1000

/** The path of the simulated consent page, under the server's public address. */
export const authorizePath = "/connect/sandbox/authorize"

/** The simulated platform's scope, echoed in the sandbox identities' `scopes`. */
export const sandboxScope = "sandbox.publish"

/** The PKCE challenge of a verifier: the hex SHA-256, as TikTok takes it. */
export const codeChallenge = (codeVerifier: string): string => createHash("sha256").update(codeVerifier).digest("hex")

/** An account the person chose on the simulated consent page. */
export interface SandboxAccount {
  /** The handle to show (`[a-z0-9_.]`, 1 to 30 characters); the same handle is the same account. */
  readonly handle: string
  /** The name to show; the handle when absent. */
  readonly displayName?: string | undefined
}

/** What the simulated consent page receives in its query. */
export interface AuthorizeParams {
  readonly platform: Platform
  readonly redirectUri: string
  readonly state: string
  /** Hex SHA-256 of the connect's code verifier. */
  readonly codeChallenge: string
}

/** The simulated consent page's address for one connect. */
export const authorizeUrl = (publicUrl: string, params: AuthorizeParams): string => {
  const url = new URL(authorizePath.slice(1), publicUrl.endsWith("/") ? publicUrl : `${publicUrl}/`)
  url.search = new URLSearchParams({
    platform: params.platform,
    response_type: "code",
    scope: sandboxScope,
    redirect_uri: params.redirectUri,
    state: params.state,
    code_challenge: params.codeChallenge,
    code_challenge_method: "S256"
  }).toString()
  return url.toString()
}

/**
 * Reads the consent page's query: `Invalid` names the first missing or wrong parameter (the
 * page answers it with an error page, never a redirect, as platforms do for a bad request).
 */
export const readAuthorizeParams = (
  query: URLSearchParams
): ({ readonly _tag: "Valid" } & AuthorizeParams) | { readonly _tag: "Invalid"; readonly parameter: string } => {
  const platform = query.get("platform")
  if (platform === null || !Schema.is(Platform)(platform)) return { _tag: "Invalid", parameter: "platform" }
  const redirectUri = query.get("redirect_uri")
  if (redirectUri === null || !URL.canParse(redirectUri)) return { _tag: "Invalid", parameter: "redirect_uri" }
  const state = query.get("state")
  if (state === null || state === "") return { _tag: "Invalid", parameter: "state" }
  const challenge = query.get("code_challenge")
  if (challenge === null || !/^[0-9a-f]{64}$/.test(challenge)) return { _tag: "Invalid", parameter: "code_challenge" }
  if (query.get("code_challenge_method") !== "S256") return { _tag: "Invalid", parameter: "code_challenge_method" }
  return { _tag: "Valid", platform, redirectUri, state, codeChallenge: challenge }
}

/** Where the consent page sends the person back: the callback with a code, or with a refusal. */
export const callbackUrl = (
  params: Pick<AuthorizeParams, "redirectUri" | "state">,
  outcome: { readonly code: string } | { readonly refused: true }
): string => {
  const url = new URL(params.redirectUri)
  if ("code" in outcome) {
    url.searchParams.set("code", outcome.code)
  } else {
    url.searchParams.set("error", "access_denied")
    url.searchParams.set("error_description", "The user denied the request")
  }
  url.searchParams.set("state", params.state)
  return url.toString()
}

const Payload = Schema.Struct({
  v: Schema.Literal(1),
  platform: Platform,
  accounts: Schema.Array(Schema.Struct({ handle: Schema.String, displayName: Schema.String })),
  redirectUri: Schema.String,
  codeChallenge: Schema.String,
  expiresAt: Schema.Number
})

const handlePattern = /^[a-z0-9_.]{1,30}$/

/**
 * The secret the sandbox consent page signs codes with: the newest master's key for sandbox
 * codes. A code lives minutes, so a code issued just before a rotation may need a second try.
 */
export const signingSecret = (keyring: Keyring.Keyring): string => Keyring.newest(keyring).key("sandbox-code").toString("base64url")

const mac = (secret: string, body: string): Buffer =>
  createHmac("sha256", secret).update(`postwire/sandbox-code/v1:${body}`).digest()

/**
 * Issues the simulated authorization code for the accounts the person allowed (one, or one or
 * more with `several`: a platform whose person chooses among accounts). Throws on an empty list
 * or a handle outside `[a-z0-9_.]{1,30}`: the page validates what the person typed first.
 */
export const issue = (input: {
  readonly secret: string
  /** Epoch milliseconds. */
  readonly now: number
  readonly platform: Platform
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly accounts: ReadonlyArray<SandboxAccount>
  /**
   * Several accounts may be allowed (the platform's `capabilities.choosesAccounts`). Default: one
   * account only.
   */
  readonly several?: boolean | undefined
}): string => {
  const several = input.several ?? false
  if (input.accounts.length === 0 || (!several && input.accounts.length !== 1)) {
    throw new Error("a sandbox consent names one account, or one or more where the platform chooses accounts")
  }
  const accounts = input.accounts.map((account) => {
    if (!handlePattern.test(account.handle)) throw new Error("a sandbox handle is 1 to 30 of [a-z0-9_.]")
    return { handle: account.handle, displayName: account.displayName?.trim() || account.handle }
  })
  const body = Buffer.from(
    JSON.stringify({
      v: 1,
      platform: input.platform,
      accounts,
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      expiresAt: input.now + codeLifetimeMs
    })
  ).toString("base64url")
  return `sbx_${body}.${mac(input.secret, body).toString("base64url")}`
}

/** Why a simulated code was refused; each is an OAuth `invalid_grant` at a real platform. */
export type ReadFailure = "malformed" | "bad_signature" | "expired" | "redirect_uri_mismatch" | "code_verifier_mismatch" | "platform_mismatch"

/** Reads a simulated code back, checking its signature, lifetime, callback, platform and PKCE verifier. */
export const read = (
  code: string,
  expected: {
    readonly secret: string
    readonly now: number
    readonly platform: Platform
    readonly redirectUri: string
    readonly codeVerifier: string
  }
):
  | { readonly _tag: "Valid"; readonly accounts: ReadonlyArray<Required<SandboxAccount>> }
  | { readonly _tag: "Invalid"; readonly reason: ReadFailure } => {
  const match = /^sbx_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(code)
  if (match === null) return { _tag: "Invalid", reason: "malformed" }
  const [, body, signature] = match as unknown as [string, string, string]
  const given = Buffer.from(signature, "base64url")
  const wanted = mac(expected.secret, body)
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return { _tag: "Invalid", reason: "bad_signature" }
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
  } catch {
    return { _tag: "Invalid", reason: "malformed" }
  }
  if (!Schema.is(Payload)(json)) return { _tag: "Invalid", reason: "malformed" }
  if (json.expiresAt <= expected.now) return { _tag: "Invalid", reason: "expired" }
  if (json.platform !== expected.platform) return { _tag: "Invalid", reason: "platform_mismatch" }
  if (json.redirectUri !== expected.redirectUri) return { _tag: "Invalid", reason: "redirect_uri_mismatch" }
  if (json.codeChallenge !== codeChallenge(expected.codeVerifier)) return { _tag: "Invalid", reason: "code_verifier_mismatch" }
  return { _tag: "Valid", accounts: json.accounts }
}
