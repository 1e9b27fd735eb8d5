/**
 * The `{id}` path parameter shared by the posts, accounts, profiles and media groups: one
 * schema, so the API reference describes it the same way under each.
 *
 * @since 0.7.0
 */
import { Schema } from "effect"

/** The `{id}` of `/v1/posts/{id}`, `/v1/accounts/{id}`, `/v1/profiles/{id}` and `/v1/media/{id}`. */
export const idParams = {
  /** Identifier of the resource the path names: `post_…` under `/v1/posts`, `acc_…` under `/v1/accounts`, `med_…` under `/v1/media`. An unknown id, or one of another workspace, is 404 `not_found`. */
  id: Schema.String.annotate({ description: "Identifier of the resource the path names: `post_…` under `/v1/posts`, `acc_…` under `/v1/accounts`, `med_…` under `/v1/media`. An unknown id, or one of another workspace, is 404 `not_found`." })
}
