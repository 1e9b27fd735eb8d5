/**
 * A platform plugin written against the published `@postwire/server` types, as a user writes
 * one for `postwire serve --plugin`: it publishes a post's caption to the blog at `BLOG_URL`
 * (read by its `env`), saving the target's id before the call that publishes and looking it up
 * when that call's answer was lost (docs/platforms.md).
 */
import type { PlatformPlugin, PublishStep } from "@postwire/server"
import { Effect } from "effect"

interface BlogSettings {
  readonly baseUrl: string
}

const call = <A>(url: string, token: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } })
      if (!response.ok) throw new Error(`blog answered ${response.status}`)
      return (await response.json()) as A
    },
    catch: (error) => error
  })

const blog: PlatformPlugin<BlogSettings> = {
  name: "blog",
  displayName: "Team blog",
  rules: {
    displayName: "Team blog",
    captionMax: 280,
    dailyQuota: 20,
    mediaMin: 0,
    mediaMax: 4,
    comments: { read: false, reply: false, hide: false, delete: false, push: false },
    checkMedia: () => undefined
  },
  env: (read) => ({ publish: { baseUrl: read.url("BLOG_URL") } }),
  publish: {
    defaults: { baseUrl: "http://127.0.0.1:9" },
    make: (settings) => ({
      publish: (input) =>
        Effect.gen(function* () {
          const { token = "" } = JSON.parse(input.account.credentials ?? "{}") as { token?: string }
          const marker = input.target.id
          if (input.state !== null) {
            const listed = yield* call<{ data: Array<{ id: string; url: string }> }>(`${settings.baseUrl}/posts?marker=${marker}`, token).pipe(Effect.orDie)
            const found = listed.data[0]
            if (found !== undefined) return { _tag: "Published", platformPostId: found.id, permalink: found.url, state: { id: found.id } } satisfies PublishStep
          }
          if (input.checkpoint !== undefined) yield* input.checkpoint({ sent: marker })
          const answer = yield* call<{ id: string; url: string }>(`${settings.baseUrl}/posts`, token, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ text: input.post.caption, marker })
          }).pipe(Effect.option)
          if (answer._tag === "None") return { _tag: "InProgress", state: { sent: marker }, pollAfterMs: 100 } satisfies PublishStep
          return { _tag: "Published", platformPostId: answer.value.id, permalink: answer.value.url, state: { id: answer.value.id } } satisfies PublishStep
        })
    })
  }
}

export default blog
