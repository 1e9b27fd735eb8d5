/**
 * Facebook Pages's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  pages: {
    summary: "Facebook Page: a photo post of two images, approved through a link",
    value: {
      profile_id: profileId,
      caption: "Our Jakarta store opens on Saturday at 10:00. Come and say hello!",
      media: ["med_01JDQSSSS6YS3C4DWA7N36096Q", "med_01JDQ14DR9GPQY77ZXYYK596NG"],
      targets: [{ account_id: "acc_01JDQZP11HYGCPWPQ5E6EYCNDY" }],
      approval: { mode: "link" }
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
