// A platform plugin in plain JavaScript, as an operator would load it with
// `postwire serve --plugin`: it publishes a post's caption to the blog at BLOG_URL (read by its
// `env`, like the built-in platforms' settings), exactly once (docs/platforms.md).
import { Effect } from "effect"

const call = (url, token, init = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } })
      if (!response.ok) throw new Error(String(response.status))
      return await response.json()
    },
    catch: (error) => error
  })

export default {
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
    defaults: { baseUrl: "http://127.0.0.1:9/unset" },
    make: (settings) => ({
      publish: (input) =>
        Effect.gen(function* () {
          const token = JSON.parse(input.account.credentials ?? "{}").token ?? ""
          const marker = input.target.id
          if (input.state !== null) {
            const listed = yield* call(`${settings.baseUrl}/posts?marker=${marker}`, token).pipe(Effect.orDie)
            const found = listed.data[0]
            if (found !== undefined) return { _tag: "Published", platformPostId: found.id, permalink: found.url, state: { id: found.id } }
          }
          if (input.checkpoint !== undefined) yield* input.checkpoint({ sent: marker })
          const answer = yield* call(`${settings.baseUrl}/posts`, token, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ text: input.post.caption, marker })
          }).pipe(Effect.option)
          if (answer._tag === "None") return { _tag: "InProgress", state: { sent: marker }, pollAfterMs: 100 }
          return { _tag: "Published", platformPostId: answer.value.id, permalink: answer.value.url, state: { id: answer.value.id } }
        })
    })
  }
}
