/**
 * Threads's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  textpost: {
    summary: "Threads: a short post with one image, published as soon as it is created",
    value: {
      profile_id: profileId,
      caption: "We just shipped dark mode. Tell us what you think!",
      media: ["med_01JDQYA1DQ91K5GQAPENECFSEC"],
      targets: [{ account_id: "acc_01JDQ0YP57RCYBVN5SXS5AA819" }],
      approval: { mode: "none" }
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
