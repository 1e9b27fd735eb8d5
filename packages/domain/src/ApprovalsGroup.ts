/**
 * The public approvals endpoint: a decision on an approval link, authorized by its token alone.
 * The group has no `Authentication` middleware: an API key, if sent, is ignored.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { DecisionRequest, DecisionResponse } from "./Approval.ts"

/** `POST /v1/approvals/{token}/decision`. */
export class ApprovalsGroup extends HttpApiGroup.make("approvals")
  .add(
    HttpApiEndpoint.post("decide", "/:token/decision", {
      params: {
        /** The token at the end of the approval link (`/approve/{token}`); it is the credential. An unknown token is 404 `not_found`. */
        token: Schema.String.annotate({ description: "The token at the end of the approval link (`/approve/{token}`); it is the credential. An unknown token is 404 `not_found`." })
      },
      payload: DecisionRequest,
      success: DecisionResponse
    })
      .annotate(OpenApi.Summary, "Approve or reject a post through its approval link")
      .annotate(
        OpenApi.Description,
        "Public: the approval link's token is the credential. One decision per link: a second one is " +
          "409 `already_decided`; an expired link is 410 `approval_expired`; approving a shortvideo direct " +
          "target without its consent is 409 `consent_required`; a `redirect_url` outside the workspace's " +
          "allowed domains is 400 `invalid_redirect_url`."
      )
  )
  .prefix("/v1/approvals")
  .annotate(OpenApi.Description, "Decisions on approval links, without an API key.") {}
