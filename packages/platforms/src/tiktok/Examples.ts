/**
 * TikTok's create requests for the contract (the plugin's `examples`): the served OpenAPI
 * document shows them for `POST /v1/posts` and `POST /v1/posts/validate`.
 *
 * @since 0.5.0
 */
import { Post } from "@postwire/domain"

const { profileId } = Post.examplePlaceholders

/** The examples, by name (the name starts with the platform's word). */
export const examples = {
  shortvideo_direct_and_inbox: {
    summary: "TikTok: a direct post with the creator's consent, and an inbox draft on a second account",
    value: {
      profile_id: profileId,
      caption: "Behind the scenes of our autumn shoot #bts",
      media: ["med_01JDQS3E28JT97KB6CQ643DZVM"],
      targets: [
        {
          account_id: "acc_01JDQXXQKFBF5KZNWJ47TAN9ZT",
          shortvideo: {
            mode: "direct",
            consent: { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true, disable_duet: true }
          }
        },
        { account_id: "acc_01JDQ24MNPZX45HY43KWJRP1XP", shortvideo: { mode: "inbox" } }
      ],
      scheduled_at: "2026-12-01T09:00:00+07:00",
      approval: { mode: "none" },
      ai_generated: false
    }
  }
} as const satisfies Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>
