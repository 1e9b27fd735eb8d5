/**
 * A platform plugin written against `@postwire/server`'s types only: it publishes a post's
 * caption to the blog of `BlogService`, exactly once. Before the call that publishes, it saves
 * the target's id as the post's marker (`checkpoint`); when the answer is lost it asks again
 * shortly (`InProgress`), and a call with that state first looks the marker up on the blog.
 */
import {
  PlatformFailure,
  type PlatformPlugin,
  type PublishInput,
  type PublishStep,
  TargetRules
} from "@postwire/server"
import { ErrorDetail } from "@postwire/domain"
import { Effect, Schema } from "effect"

/** The blog's settings: where it is; the account's credentials carry its bearer token. */
export interface BlogSettings {
  readonly baseUrl: string
}

const unavailable = (platformCode: string) => new PlatformFailure({ code: "platform_unavailable", platformCode, retryable: true })

/**
 * The blog's refusal of a word, as a failure of the plugin's own: a code of the catalog, the
 * blog's code as `platform_code`, and its own reason in both languages (it fills the catalog
 * message's `{detail}`).
 */
const wordRefused = new PlatformFailure({
  code: "caption_invalid",
  platformCode: "blog_word_not_allowed",
  retryable: false,
  notPublished: true,
  details: {
    platform: "blog",
    detail: { en: 'the blog does not publish the word "forbidden"', id: 'blog tidak menerbitkan kata "forbidden"' }
  }
})

const call = (url: string, token: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } })
      if (response.status === 422) return { refused: ((await response.json()) as { error: string }).error }
      if (!response.ok) throw new Error(String(response.status))
      return (await response.json()) as unknown
    },
    catch: () => unavailable("blog_unreachable")
  })

const isRefusal = (answer: unknown): answer is { refused: string } => typeof answer === "object" && answer !== null && "refused" in answer

const tokenOf = (input: Pick<PublishInput, "account">): string =>
  (JSON.parse(input.account.credentials ?? "{}") as { token?: string }).token ?? ""

/** The blog's per-target options (`targets[].blog`): the post's tone and up to three tags. */
export const BlogOptions = Schema.Struct({
  tone: Schema.Literals(["formal", "casual"]),
  tags: Schema.optionalKey(Schema.Array(Schema.String).check(Schema.isMaxLength(3)))
})
export type BlogOptions = typeof BlogOptions.Type

/**
 * The blog's `options`: a target without them is `casual`; a `formal` post takes one image at
 * most (a refusal of the plugin's own, 422 `media_invalid` on `targets[i].blog.tone`).
 */
export const blogOptions: NonNullable<PlatformPlugin["options"]> = {
  schema: BlogOptions,
  resolve: (given, post) => {
    const options = (given as BlogOptions | undefined) ?? { tone: "casual" }
    if (options.tone === "formal" && post.media.length > 1) {
      return TargetRules.refused({
        code: "media_invalid",
        field: "tone",
        details: { platform: "blog", detail: ErrorDetail.reason("items_max", { max: 1 }) }
      })
    }
    return TargetRules.resolved(options)
  }
}

/** The tone a target publishes with: its stored options (`input.target.options.blog`), decoded with the plugin's schema. */
const toneOf = (input: PublishInput): string | undefined => {
  const stored = (input.target.options as Readonly<Record<string, unknown>>).blog
  return stored === undefined ? undefined : Schema.decodeUnknownSync(BlogOptions)(stored).tone
}

/** The blog plugin, publishing to `baseUrl`; with `withOptions`, it takes per-target options ({@link blogOptions}). */
export const blogPlugin = (baseUrl: string, withOptions = false): PlatformPlugin<BlogSettings> => ({
  name: "blog",
  ...(withOptions ? { options: blogOptions } : {}),
  displayName: "Team blog",
  rules: {
    displayName: "Team blog",
    captionMax: 280,
    dailyQuota: 20,
    mediaMin: 0,
    mediaMax: 4,
    comments: { read: false, reply: false, hide: false, delete: false, push: false },
    checkMedia: (target, media) =>
      TargetRules.countFits(target.rules, media.length)
        ? undefined
        : TargetRules.invalid(target.platform, "textpost_items_max", ErrorDetail.reason("items_max", { max: target.rules.mediaMax }))
  },
  publish: {
    defaults: { baseUrl },
    make: (settings) => ({
      publish: (input) =>
        Effect.gen(function* () {
          const token = tokenOf(input)
          const marker = input.target.id
          if (input.state !== null) {
            // A publish may have been sent and its answer lost: look for it before sending again.
            const listed = (yield* call(`${settings.baseUrl}/posts?marker=${marker}`, token)) as { data: Array<{ id: string; url: string }> }
            const found = listed.data[0]
            if (found !== undefined) {
              return { _tag: "Published", platformPostId: found.id, permalink: found.url, state: { id: found.id } } satisfies PublishStep
            }
          }
          if (input.checkpoint !== undefined) yield* input.checkpoint({ sent: marker })
          const answer = yield* call(`${settings.baseUrl}/posts`, token, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ text: input.post.caption, marker, images: input.media.map((m) => m.url), tone: toneOf(input) })
          }).pipe(Effect.option)
          if (answer._tag === "None") {
            // The answer was lost: the post may exist. Ask again shortly, with the marker saved.
            return { _tag: "InProgress", state: { sent: marker }, pollAfterMs: 100 } satisfies PublishStep
          }
          if (isRefusal(answer.value)) return yield* Effect.fail(wordRefused)
          const created = answer.value as { id: string; url: string }
          return { _tag: "Published", platformPostId: created.id, permalink: created.url, state: { id: created.id } } satisfies PublishStep
        })
    })
  }
})
