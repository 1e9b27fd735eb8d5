/**
 * Bluesky's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  atproto: {
    summary: "Bluesky: a post with one image and its alt text, in Indonesian and English",
    value: {
      profile_id: profileId,
      caption: "Pasar pagi di Bandung / The morning market in Bandung #travel",
      media: ["med_01JDQYA1DQ91K5GQAPENECFSEC"],
      targets: [
        {
          account_id: "acc_01JDQ3AT8P9Q0R1S2T3V4W5X6Y",
          atproto: { alt: ["Stalls of fruit under a striped awning at dawn"], langs: ["id", "en"] }
        }
      ],
      approval: { mode: "none" }
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
