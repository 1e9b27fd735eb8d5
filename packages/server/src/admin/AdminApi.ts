/**
 * The admin API, `/admin/v1`: workspaces, keys, profiles and accounts. Authenticated with the
 * admin token (`POSTWIRE_ADMIN_TOKEN`); not part of the public contract or the SDK.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity } from "effect/http-api"
import { Account, ApiErrors, ApprovalLinks, ErrorDetail, httpErrors, KeyKind, Platform, PrivacyLevel, Scope } from "@postwire/domain"

/** Bearer authentication with the admin token. */
export class AdminAuthentication extends HttpApiMiddleware.Service<AdminAuthentication>()("postwire/AdminAuthentication", {
  security: { bearer: HttpApiSecurity.bearer },
  error: httpErrors
}) {}

const Created = Schema.Struct({ id: Schema.String }).pipe(HttpApiSchema.status(201))
const workspaceParams = { id: Schema.String }

/** Request bodies of the admin API. */
export const CreateWorkspace = Schema.Struct({
  name: Schema.String,
  allowed_redirect_domains: Schema.optionalKey(Schema.Array(Schema.String))
})
/** `PATCH /admin/v1/workspaces/{id}`: what is given replaces what was; the rest stays. */
export const UpdateWorkspace = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  /** The whole list: redirects (approval and connect `redirect_url`) may go to these domains and their subdomains. */
  allowed_redirect_domains: Schema.optionalKey(Schema.Array(Schema.String))
})
export const CreateKey = Schema.Struct({
  kind: KeyKind,
  scopes: Schema.Array(Scope),
  /** `hidden`: the key never sees approval links (for agents and integrations). Default `shown`. */
  approval_links: Schema.optionalKey(ApprovalLinks)
})
export const CreateProfile = Schema.Struct({ name: Schema.String })
export const Simulate = Schema.Struct({
  error: Schema.optionalKey(Schema.String),
  times: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  max_video_duration_sec: Schema.optionalKey(Schema.Number.check(Schema.isGreaterThan(0))),
  privacy_level_options: Schema.optionalKey(Schema.Array(PrivacyLevel)),
  /** A normalized code (e.g. `token_expired`, `platform_unavailable`) every metrics reading of the simulated platform fails with. */
  analytics_error: Schema.optionalKey(Schema.String),
  /** Comments the simulated platform makes under each published target: comment i appears i × every_seconds after publishing, up to count. */
  comments: Schema.optionalKey(
    Schema.Struct({
      count: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(10_000)),
      every_seconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
    })
  )
})
export const CreateAccount = Schema.Struct({
  profile_id: Schema.String,
  platform: Platform,
  sandbox: Schema.Boolean,
  handle: Schema.optionalKey(Schema.String),
  daily_quota: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  simulate: Schema.optionalKey(Simulate),
  credentials: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  external_id: Schema.optionalKey(Schema.String)
})

/** A workspace in the admin API's lists. */
export const WorkspaceView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  allowed_redirect_domains: Schema.Array(Schema.String),
  created_at: Schema.String
})

/** An API key in the admin API: never its secret, only its last four characters. */
export const KeyView = Schema.Struct({
  id: Schema.String,
  kind: KeyKind,
  scopes: Schema.Array(Scope),
  approval_links: ApprovalLinks,
  last4: Schema.String,
  created_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
})

/** A list that takes no query parameters: any given is refused by name (`invalid_request`). */
const noQuery = Schema.Record(Schema.String, Schema.Never.annotate(ErrorDetail.annotation(ErrorDetail.reason("unknown_field"))))

const keyParams = { id: Schema.String, key_id: Schema.String }

/** Workspaces and everything in them. */
export class AdminGroup extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createWorkspace", "/workspaces", { payload: CreateWorkspace, success: Created }),
    HttpApiEndpoint.post("createKey", "/workspaces/:id/keys", {
      params: workspaceParams,
      payload: CreateKey,
      success: Schema.Struct({ id: Schema.String, key: Schema.String }).pipe(HttpApiSchema.status(201))
    }),
    HttpApiEndpoint.post("createProfile", "/workspaces/:id/profiles", {
      params: workspaceParams,
      payload: CreateProfile,
      success: Created
    }),
    HttpApiEndpoint.post("createAccount", "/workspaces/:id/accounts", {
      params: workspaceParams,
      payload: CreateAccount,
      success: Created
    }),
    HttpApiEndpoint.get("listWorkspaces", "/workspaces", { query: noQuery, success: Schema.Struct({ data: Schema.Array(WorkspaceView) }) }),
    HttpApiEndpoint.get("getWorkspace", "/workspaces/:id", { params: workspaceParams, success: WorkspaceView }),
    HttpApiEndpoint.patch("updateWorkspace", "/workspaces/:id", { params: workspaceParams, payload: UpdateWorkspace, success: WorkspaceView }),
    HttpApiEndpoint.get("listKeys", "/workspaces/:id/keys", {
      params: workspaceParams,
      query: noQuery,
      success: Schema.Struct({ data: Schema.Array(KeyView) })
    }),
    HttpApiEndpoint.post("revokeKey", "/workspaces/:id/keys/:key_id/revoke", { params: keyParams, success: KeyView }),
    HttpApiEndpoint.get("listAccounts", "/workspaces/:id/accounts", {
      params: workspaceParams,
      query: Account.ListAccountsQuery,
      success: Account.AccountList
    }),
    HttpApiEndpoint.get("listProfiles", "/workspaces/:id/profiles", {
      params: workspaceParams,
      query: Account.ListProfilesQuery,
      success: Account.ProfileList
    })
  )
  .middleware(AdminAuthentication)
  .prefix("/admin/v1") {}

const strictInput = { onExcessProperty: "error", errors: "all" } as const

/** The admin API. */
export class AdminApi extends HttpApi.make("postwire-admin")
  .add(AdminGroup)
  .middleware(ApiErrors)
  .annotate(HttpApi.PayloadParseOptions, strictInput)
  .annotate(HttpApi.QueryParseOptions, strictInput) {}
