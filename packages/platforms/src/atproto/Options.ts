/**
 * Bluesky's per-target options: `targets[].atproto` in requests, `targets[].options.atproto` in
 * responses.
 *
 * - `alt`: the alt text of each media item, in order (at most 4, each at most 2,000 characters;
 *   Bluesky's app caps alt text at 2,000). Images without one are sent with `alt: ""`.
 * - `langs`: the post's languages as BCP-47 tags (at most 3, post.json `langs.maxLength`).
 *
 * @since 0.5.0
 */
import type { TargetRules } from "@postwire/domain"
import { Schema } from "effect"

/** The longest alt text Bluesky's app takes. */
export const altMax = 2000

/** Bluesky's target options. */
export const AtprotoOptions = Schema.Struct({
  alt: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isMaxLength(altMax)))
      .check(Schema.isMaxLength(4))
      .annotate({ description: "The alt text of each media item, in the post's order (at most 4, each up to 2,000 characters). An image without one is sent with an empty alt text." })
  ),
  langs: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isPattern(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8})*$/)))
      .check(Schema.isMaxLength(3))
      .annotate({ description: "The post's languages as BCP-47 tags (`en`, `id`, `pt-BR`), at most 3." })
  )
})
/** Bluesky's target options. */
export type AtprotoOptions = typeof AtprotoOptions.Type

/** The Bluesky plugin's `options`: stored as given (none when the request has none). */
export const options: TargetRules.OptionsSpec = { schema: AtprotoOptions }
