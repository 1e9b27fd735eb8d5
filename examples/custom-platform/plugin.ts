/**
 * The blog as a Postwire platform: a `PlatformPlugin` written against `@postwire/server`'s
 * types. It follows the exactly-once contract of docs/platforms.md: it saves the target's id
 * (`checkpoint`) before the call that publishes, sends it with the post as its reference, and
 * when that call's answer is lost it looks the reference up before sending again.
 */
import { PlatformFailure, type PlatformPlugin, type PublishStep } from "@postwire/server"
import { Effect } from "effect"

/** Where the blog's API is. `postwire serve --plugin` reads it from `BLOG_URL` (see `env`). */
export interface BlogSettings {
  readonly baseUrl: string
}

/** Calls the blog; a failure is retryable (the blog may be restarting). */
const request = <A>(url: string, token: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } })
      if (!response.ok) throw new Error(`blog answered ${response.status}`)
      return (await response.json()) as A
    },
    catch: () => new PlatformFailure({ code: "platform_unavailable", platformCode: "blog_unreachable", retryable: true })
  })

/** The plugin; `baseUrl` is the default address of the blog. */
export const blogPlatform = (baseUrl = "http://127.0.0.1:4000"): PlatformPlugin<BlogSettings> => ({
  name: "blog",
  displayName: "Company blog",
  rules: {
    displayName: "Company blog",
    captionMax: 500,
    dailyQuota: 50,
    mediaMin: 0,
    mediaMax: 4,
    comments: { read: false, reply: false, hide: false, delete: false, push: false },
    checkMedia: () => undefined
  },
  env: (read) => ({ publish: { baseUrl: read.url("BLOG_URL") } }),
  publish: {
    defaults: { baseUrl },
    make: (settings) => ({
      publish: (input) =>
        Effect.gen(function* () {
          // The account's credentials, as created: { "token": "..." }.
          const { token = "" } = JSON.parse(input.account.credentials ?? "{}") as { token?: string }
          const ref = input.target.id
          if (input.state !== null) {
            // An earlier call may have published and lost its answer: look before sending again.
            const { posts } = yield* request<{ posts: Array<{ id: string; url: string }> }>(`${settings.baseUrl}/posts?ref=${ref}`, token)
            const found = posts[0]
            if (found !== undefined) return { _tag: "Published", platformPostId: found.id, permalink: found.url, state: { id: found.id } } satisfies PublishStep
          }
          if (input.checkpoint !== undefined) yield* input.checkpoint({ ref })
          const sent = yield* request<{ id: string; url: string }>(`${settings.baseUrl}/posts`, token, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ text: input.post.caption, ref })
          }).pipe(Effect.option)
          // No answer: the post may be on the blog. Ask again shortly; the next call looks first.
          if (sent._tag === "None") return { _tag: "InProgress", state: { ref }, pollAfterMs: 500 } satisfies PublishStep
          return { _tag: "Published", platformPostId: sent.value.id, permalink: sent.value.url, state: { id: sent.value.id } } satisfies PublishStep
        })
    })
  }
})

/** For `postwire serve --plugin`: the plugin, its address read from `BLOG_URL`. */
export default blogPlatform()
