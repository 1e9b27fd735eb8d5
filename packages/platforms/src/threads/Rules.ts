/**
 * What Threads accepts (Threads API): text alone, one image or video, or a carousel; a
 * 500-character text; 250 API-published posts per profile in a rolling 24 hours.
 *
 * Sources: https://developers.facebook.com/docs/threads/posts and
 * https://developers.facebook.com/docs/threads/troubleshooting#rate-limiting
 *
 * @since 0.4.0
 */
import { ErrorDetail, TargetRules } from "@postwire/domain"

const { countFits, invalid } = TargetRules

/** Threads' rules. */
export const rules: TargetRules.PlatformRuleSet = {
  displayName: "Threads",
  captionMax: 500,
  dailyQuota: 250,
  mediaMin: 0,
  mediaMax: 10,
  // Threads deletes only the account's own replies (DELETE /{media-id}); others can be hidden.
  comments: { read: true, reply: true, hide: true, delete: true, push: true },
  checkMedia: (target, media) =>
    countFits(target.rules, media.length)
      ? undefined
      : invalid(target.platform, "textpost_items_max", ErrorDetail.reason("textpost_items_max", { max: target.rules.mediaMax }))
}
