/**
 * YouTube's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  video_short: {
    summary: "YouTube: a vertical video under three minutes (a Short), unlisted, not made for kids",
    value: {
      profile_id: profileId,
      caption: "Shaping a sourdough boule in 45 seconds\nThe full recipe is on our blog.",
      media: ["med_01JDQYB7W2C3N4P5Q6R7S8T9V0"],
      targets: [
        {
          account_id: "acc_01JDQ0ZQ3V9X8W7Y6Z5A4B3C2D",
          video: {
            title: "Shaping a sourdough boule #Shorts",
            privacy_status: "unlisted",
            made_for_kids: false,
            tags: ["sourdough", "baking"]
          }
        }
      ],
      approval: { mode: "none" }
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
