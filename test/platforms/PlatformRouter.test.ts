import { assert, describe, it } from "@effect/vitest"
import { PlatformRouter } from "@postwire/platforms"
import { Effect } from "effect"
import { aRouter, drive } from "./adapterConformance.ts"
import { aConsent, anImage, aPost, aPublishInput, aSandboxAccount, aTarget, aVideo } from "./builders.ts"

const aSandboxPublish = (platform: "shortvideo" | "photo" | "pages" | "textpost") => {
  const account = aSandboxAccount(platform, { externalId: "104000000000001" })
  const shortvideo = platform === "shortvideo"
  return aPublishInput({
    account,
    post: aPost(),
    target: aTarget(account, shortvideo ? { options: { shortvideo: { mode: "direct" } }, consent: aConsent() } : {}),
    media: shortvideo ? [aVideo()] : [anImage()]
  })
}

describe("PlatformRouter", () => {
  // Nothing listens here: a sandbox publish that reached the network would fail.
  const nowhere = "http://127.0.0.1:9"

  it.live("sends sandbox accounts to the simulated platform, never to the network", () =>
    Effect.gen(function* () {
      const client = yield* aRouter({
        shortvideo: { baseUrl: nowhere },
        photo: { baseUrl: nowhere },
        pages: { baseUrl: nowhere },
        textpost: { baseUrl: nowhere },
        retry: { attempts: 1 }
      })
      for (const platform of ["shortvideo", "photo", "pages", "textpost"] as const) {
        const result = yield* drive(client, aSandboxPublish(platform))
        assert.isDefined(result.published, `${platform}: ${result.failure?.platformCode}`)
      }
      const info = yield* client.creatorInfo(aSandboxAccount("shortvideo"))
      assert.strictEqual(info.username, "maya.bakes")
    })
  )

  it.live("sends live accounts to their platform's adapter", () =>
    Effect.gen(function* () {
      const client = yield* aRouter({ photo: { baseUrl: nowhere }, retry: { attempts: 1 } })
      const input = aSandboxPublish("photo")
      const live = { ...input, account: { ...input.account, sandbox: false, credentials: '{"access_token":"IGQ.1"}' } }
      const result = yield* drive(client, live)
      assert.strictEqual(result.failure?.code, "platform_unavailable")
      assert.strictEqual(result.failure?.platformCode, "network_error")
    })
  )

  it("fills every setting a deployment leaves out, and keeps secrets redacted", () => {
    const config = PlatformRouter.makeConfig({ shortvideo: { clientKey: "ck", clientSecret: "cs" }, photo: { appSecret: "as" }, retry: { attempts: 5 } })
    const settings = config as Readonly<Record<string, { readonly baseUrl: string; readonly clientSecret?: unknown }>>
    assert.strictEqual(settings.shortvideo!.baseUrl, "https://open.tiktokapis.com")
    assert.strictEqual(settings.photo!.baseUrl, "https://graph.instagram.com/v23.0")
    assert.strictEqual(settings.pages!.baseUrl, "https://graph.facebook.com/v23.0")
    assert.strictEqual(settings.textpost!.baseUrl, "https://graph.threads.net/v1.0")
    assert.deepStrictEqual(config.retry, { attempts: 5, baseDelayMs: 10_000 })
    assert.notInclude(JSON.stringify(config), "cs")
    assert.notInclude(JSON.stringify(config), "\"as\"")
    assert.notInclude(String(settings.shortvideo!.clientSecret), "cs")
  })
})
