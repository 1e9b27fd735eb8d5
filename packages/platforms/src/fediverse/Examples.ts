/**
 * Mastodon's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  fediverse: {
    summary: "Mastodon: two images with their descriptions behind a content warning, for followers only",
    value: {
      profile_id: profileId,
      caption: "Spoilers for tonight's finale, with the set photos we promised.",
      media: ["med_01JDQSSSS6YS3C4DWA7N36096Q", "med_01JDQ14DR9GPQY77ZXYYK596NG"],
      targets: [
        {
          account_id: "acc_01JDQ2FD7M3N4P5Q6R7S8T9V0W",
          fediverse: {
            visibility: "private",
            spoiler_text: "Finale spoilers",
            language: "en",
            alt: ["The cast on the finale's set, under stage lights", "The empty set after the last take"]
          }
        }
      ],
      approval: { mode: "none" }
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
