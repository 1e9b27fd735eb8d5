/**
 * Example create requests, one per platform, as the API reference shows them: each is a body the
 * server accepts once its placeholder ids name a profile, accounts and media of your workspace.
 *
 * @since 0.1.0
 */
import type { CreatePostRequest } from "./Post.ts"

/** A named example of a request body: a one-line summary and the body itself. */
export interface RequestExample<A> {
  readonly summary: string
  readonly value: A
}

const profileId = "prof_01JDQM9S346Q3D25VT4F5V37E3"

/**
 * One create request per platform. Every target carries only its own platform's options, and
 * `scheduled_at`, when present, is an instant with an offset.
 *
 * @example
 * ```ts
 * import { Post } from "@postwire/domain"
 *
 * const body = { ...Post.createPostExamples.photo_reel.value, profile_id: "prof_…" }
 * ```
 */
export const createPostExamples = {
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
  },
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
  },
  pages: {
    summary: "Facebook Page: a photo post of two images, approved through a link",
    value: {
      profile_id: profileId,
      caption: "Our Jakarta store opens on Saturday at 10:00. Come and say hello!",
      media: ["med_01JDQSSSS6YS3C4DWA7N36096Q", "med_01JDQ14DR9GPQY77ZXYYK596NG"],
      targets: [{ account_id: "acc_01JDQZP11HYGCPWPQ5E6EYCNDY" }],
      approval: { mode: "link" }
    }
  },
  textpost: {
    summary: "Threads: a short post with one image, published as soon as it is created",
    value: {
      profile_id: profileId,
      caption: "We just shipped dark mode. Tell us what you think!",
      media: ["med_01JDQYA1DQ91K5GQAPENECFSEC"],
      targets: [{ account_id: "acc_01JDQ0YP57RCYBVN5SXS5AA819" }],
      approval: { mode: "none" }
    }
  },
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
  },
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
  },
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
  },
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
} as const satisfies Record<string, RequestExample<typeof CreatePostRequest.Encoded>>
