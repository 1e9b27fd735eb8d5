/**
 * Instagram's per-target options (`targets[].photo`): the kind of post (`reel`, `feed` or
 * `story`). The schema stays exported from `@postwire/domain` (`Post.PhotoOptions`) for
 * compatibility. Without options, a post of exactly one video is a reel and any other a feed
 * post (https://developers.facebook.com/docs/instagram-platform/content-publishing: single feed
 * videos are published as reels since 9 November 2023); the kind is stored with the target.
 *
 * @since 0.5.0
 */
import { Post, TargetRules } from "@postwire/domain"

/** The kind of post a target's stored options ask for, completed from its media. */
export const kindOf = (stored: unknown, media: ReadonlyArray<TargetRules.MediaFacts>): Post.PhotoType =>
  TargetRules.photoType((stored as Post.PhotoOptions | undefined)?.type, media)

/** The Instagram plugin's `options`. */
export const options: TargetRules.OptionsSpec = {
  schema: Post.PhotoOptions,
  resolve: (given, post) => TargetRules.resolved({ type: kindOf(given, post.media) })
}
