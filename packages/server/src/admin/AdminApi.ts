/**
 * The admin API, `/admin/v1`: workspaces, keys, profiles and accounts. Authenticated with the
 * admin token (`POSTWIRE_ADMIN_TOKEN`); not part of the public contract or the SDK.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity } from "effect/http-api"
import { ApiErrors, httpErrors, KeyKind, Platform, PrivacyLevel, Scope } from "@postwire/domain"

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
export const CreateKey = Schema.Struct({
  kind: KeyKind,
  scopes: Schema.Array(Scope)
})
export const CreateProfile = Schema.Struct({ name: Schema.String })
export const Simulate = Schema.Struct({
  error: Schema.optionalKey(Schema.String),
  times: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  max_video_duration_sec: Schema.optionalKey(Schema.Number.check(Schema.isGreaterThan(0))),
  privacy_level_options: Schema.optionalKey(Schema.Array(PrivacyLevel))
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
    })
  )
  .middleware(AdminAuthentication)
  .prefix("/admin/v1") {}

const strictInput = { onExcessProperty: "error", errors: "all" } as const

/** The admin API. */
export class AdminApi extends HttpApi.make("postwire-admin")
  .add(AdminGroup)
  .middleware(ApiErrors)
  .annotate(HttpApi.PayloadParseOptions, strictInput) {}
