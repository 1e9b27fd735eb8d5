/**
 * Example create requests as the API reference shows them: each is a body the server accepts once
 * its placeholder ids name a profile, accounts and media of your workspace. The platforms' own
 * examples are their plugins' (`PlatformPlugin.examples`).
 *
 * @since 0.1.0
 */
import type { CreatePostRequest } from "./Post.ts"

/** A named example of a request body: a one-line summary and the body itself. */
export interface RequestExample<A> {
  readonly summary: string
  readonly value: A
}

/** The placeholder ids the examples use (the reference's examples are made real by replacing them). */
export const examplePlaceholders = { profileId: "prof_01JDQM9S346Q3D25VT4F5V37E3" } as const

const { profileId } = examplePlaceholders

/**
 * The contract's own create request, with no platform's options. Each platform plugin brings its
 * own examples (`PlatformPlugin.examples`), and a server's OpenAPI document shows the served
 * platforms' examples in place of this one. `scheduled_at`, when present, is an instant with an
 * offset.
 *
 * @example
 * ```ts
 * import { Post } from "@postwire/domain"
 *
 * const body = { ...Post.createPostExamples.one_image_now.value, profile_id: "prof_…" }
 * ```
 */
export const createPostExamples = {
  one_image_now: {
    summary: "A short post with one image, published as soon as it is created",
    value: {
      profile_id: profileId,
      caption: "We just shipped dark mode. Tell us what you think!",
      media: ["med_01JDQYA1DQ91K5GQAPENECFSEC"],
      targets: [{ account_id: "acc_01JDQ0YP57RCYBVN5SXS5AA819" }],
      approval: { mode: "none" }
    }
  }
} as const satisfies Record<string, RequestExample<typeof CreatePostRequest.Encoded>>
