/**
 * The accounts endpoints of the contract, `/v1/accounts`: list and read accounts with their
 * posting quota, make connect and reconnect links, disconnect.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Account, AccountList, ConnectAccountRequest, ConnectLink, ListAccountsQuery, ReconnectAccountRequest } from "./Account.ts"
import { Authentication, RequiredScope } from "./Auth.ts"
import { idParams } from "./PathParams.ts"

/** Accounts, with each one's posting quota. */
export class AccountsGroup extends HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListAccountsQuery, success: AccountList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List accounts")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's accounts, newest first, filtered by `profile_id` and `platform`. Scope `posts:read`."
      ),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Account })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve an account and its quota")
      .annotate(
        OpenApi.Description,
        "Retrieves an account with its connection status and its posting quota over the last 24 hours. Scope " +
          "`posts:read`."
      ),
    HttpApiEndpoint.post("connect", "/connect", {
      payload: ConnectAccountRequest,
      success: ConnectLink.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Make a link that connects an account")
      .annotate(
        OpenApi.Description,
        "A single-use link, valid 30 minutes, that a person opens in a browser to connect one of their accounts (for `pages`, one account per Facebook Page they pick)."
      ),
    HttpApiEndpoint.post("reconnect", "/:id/reconnect", {
      params: idParams,
      // The body is optional: none, or an empty one, is `{}`.
      payload: [ReconnectAccountRequest, Schema.Null],
      success: ConnectLink.pipe(HttpApiSchema.status(201))
    })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Make a link that connects an account again")
      .annotate(
        OpenApi.Description,
        "A single-use link, valid 30 minutes, for the person who owns the account to grant access again (an account in " +
          "`needs_reconnect`, or to renew its permissions). Completing it renews the same account: its id, profile and " +
          "posts are kept. The body may be empty (no `redirect_url`). Scope `accounts:write`."
      ),
    HttpApiEndpoint.delete("disconnect", "/:id", { params: idParams, success: Account })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Disconnect an account")
      .annotate(
        OpenApi.Description,
        "Revokes the token at the platform where it offers that, erases the stored credentials and marks the account `disconnected`; its queued and scheduled targets fail with `token_expired`."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/accounts")
  .annotate(OpenApi.Description, "The social accounts posts publish to, with each one's posting quota.") {}
