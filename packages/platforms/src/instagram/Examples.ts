/**
 * Instagram's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  photo_reel: {
    summary: "Instagram: a reel, approved through a link e-mailed in Indonesian",
    value: {
      profile_id: profileId,
      caption: "Three ways to style a linen shirt. Which one is yours?",
      media: ["med_01JDQA7Z3DJ8FSSZ5AWSH8VHTP"],
      targets: [{ account_id: "acc_01JDQRE95B9EE0ZBGJ09TQM83X", photo: { type: "reel" } }],
      approval: { mode: "link", notify: { email: "editor@example.com", locale: "id" } }
    }
  },
  photo_carousel: {
    summary: "Instagram: a feed carousel of three images, scheduled",
    value: {
      profile_id: profileId,
      caption: "New arrivals for the weekend. Swipe to see them all.",
      media: ["med_01JDQSSSS6YS3C4DWA7N36096Q", "med_01JDQ14DR9GPQY77ZXYYK596NG", "med_01JDQYA1DQ91K5GQAPENECFSEC"],
      targets: [{ account_id: "acc_01JDQRE95B9EE0ZBGJ09TQM83X", photo: { type: "feed" } }],
      scheduled_at: "2026-12-05T18:30:00Z"
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
