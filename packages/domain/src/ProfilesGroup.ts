/**
 * The profiles endpoints of the contract, `/v1/profiles`: list, create, read, rename and delete
 * the profiles that group accounts.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CreateProfileRequest, DeletedProfile, ListProfilesQuery, Profile, ProfileList, UpdateProfileRequest } from "./Account.ts"
import { Authentication, RequiredScope } from "./Auth.ts"
import { idParams } from "./PathParams.ts"

/** Profiles. */
export class ProfilesGroup extends HttpApiGroup.make("profiles")
  .add(
    HttpApiEndpoint.get("list", "/", { query: ListProfilesQuery, success: ProfileList })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "List profiles")
      .annotate(
        OpenApi.Description,
        "Lists the workspace's profiles, newest first. Scope `posts:read`."
      ),
    HttpApiEndpoint.post("create", "/", { payload: CreateProfileRequest, success: Profile.pipe(HttpApiSchema.status(201)) })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Create a profile")
      .annotate(OpenApi.Description, "Creates an empty profile; connect accounts to it with `POST /v1/accounts/connect`. Scope `accounts:write`."),
    HttpApiEndpoint.get("get", "/:id", { params: idParams, success: Profile })
      .annotate(RequiredScope, "posts:read")
      .annotate(OpenApi.Summary, "Retrieve a profile")
      .annotate(OpenApi.Description, "Retrieves a profile. A profile of another workspace is 404 `not_found`. Scope `posts:read`."),
    HttpApiEndpoint.patch("update", "/:id", { params: idParams, payload: UpdateProfileRequest, success: Profile })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Rename a profile")
      .annotate(OpenApi.Description, "Changes the profile's name and answers the profile. Scope `accounts:write`."),
    HttpApiEndpoint.delete("delete", "/:id", { params: idParams, success: DeletedProfile })
      .annotate(RequiredScope, "accounts:write")
      .annotate(OpenApi.Summary, "Delete a profile")
      .annotate(
        OpenApi.Description,
        "Refused with 409 `invalid_state` while the profile has accounts that are not disconnected, or posts that have not finished."
      )
  )
  .middleware(Authentication)
  .prefix("/v1/profiles")
  .annotate(OpenApi.Description, "Profiles group the accounts that publish together (a brand, a client).") {}
