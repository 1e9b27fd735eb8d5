/**
 * LinkedIn's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  professional_page_article: {
    summary: "LinkedIn: a company page shares an article with its image as the thumbnail, to everyone",
    value: {
      profile_id: profileId,
      caption: "Our Q3 report is out (with a few surprises). #results",
      media: ["med_01JDQYC7TR2K8W4N5P6Q7R8S9T"],
      targets: [
        {
          account_id: "acc_01JDQ1MN3A8B9C0D1E2F3G4H5J",
          professional: {
            visibility: "PUBLIC",
            link: { url: "https://example.com/reports/q3", title: "Q3 report", description: "What grew, and what is next" }
          }
        }
      ],
      approval: { mode: "none" }
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
