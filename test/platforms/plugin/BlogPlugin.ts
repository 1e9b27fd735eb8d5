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
import { Effect } from "effect"

/** The blog's settings: where it is; the account's credentials carry its bearer token. */
export interface BlogSettings {
  readonly baseUrl: string
}

const unavailable = (platformCode: string) => new PlatformFailure({ code: "platform_unavailable", platformCode, retryable: true })

const call = (url: string, token: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } })
      if (!response.ok) throw new Error(String(response.status))
      return (await response.json()) as unknown
    },
    catch: () => unavailable("blog_unreachable")
  })

const tokenOf = (input: Pick<PublishInput, "account">): string =>
  (JSON.parse(input.account.credentials ?? "{}") as { token?: string }).token ?? ""

/** The blog plugin, publishing to `baseUrl`. */
export const blogPlugin = (baseUrl: string): PlatformPlugin<BlogSettings> => ({
  name: "blog",
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
        : TargetRules.invalid(target.platform, "textpost_items_max", ErrorDetail.reason("textpost_items_max", { max: target.rules.mediaMax }))
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
            body: JSON.stringify({ text: input.post.caption, marker, images: input.media.map((m) => m.url) })
          }).pipe(Effect.option)
          if (answer._tag === "None") {
            // The answer was lost: the post may exist. Ask again shortly, with the marker saved.
            return { _tag: "InProgress", state: { sent: marker }, pollAfterMs: 100 } satisfies PublishStep
          }
          const created = answer.value as { id: string; url: string }
          return { _tag: "Published", platformPostId: created.id, permalink: created.url, state: { id: created.id } } satisfies PublishStep
        })
    })
  }
})
