import { assert, describe, it } from "@effect/vitest"
import { createHmac } from "node:crypto"
import { Clock, Effect, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { type PostwireError, renderError } from "@postwire/domain"
import {
  CredentialsCipher,
  defaultSettings,
  EngineConfig,
  Ids,
  MemoryStore,
  MemoryWebhookStore,
  UrlSafety,
  Webhooks,
  WebhookSecrets,
  WebhookStore,
  Workspaces
} from "../src/index.ts"
import { NodeWebhookTransport } from "@postwire/server"
import { aMovableClock } from "../../../test/support/MovableClock.ts"
import { aReceiver } from "./fixtures/receiver.ts"
import { Ids as Id } from "@postwire/domain"
import { Registry } from "@postwire/platforms"

const dns: Record<string, Array<string>> = {
  "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "intranet.example.com": ["93.184.216.34", "192.168.1.20"],
  "rebinding.example.com": ["127.0.0.1"]
}

const Engine = (allowLoopback: boolean) =>
  Layer.mergeAll(
    Ids.layerTest,
    CredentialsCipher.layer.pipe(
      Layer.provideMerge(EngineConfig.layer(defaultSettings("https://postwire.test", "test-secret-of-at-least-thirty-two-bytes", Registry.catalog())))
    ),
    Webhooks.WebhookSettings.layer({ allowLoopback }),
    NodeWebhookTransport.layer,
    Layer.succeed(UrlSafety.Resolver)({
      resolve: (host) =>
        Effect.suspend(() =>
          dns[host] === undefined ? Effect.fail(new UrlSafety.ResolveError({ host })) : Effect.succeed(dns[host]!)
        )
    }),
    MemoryWebhookStore.layer
  ).pipe(Layer.provideMerge(MemoryStore.layer))

const aCaller = Effect.gen(function* () {
  const workspace = yield* Workspaces.createWorkspace({ name: "acme" })
  const key = yield* Workspaces.createKey(workspace.id, { kind: "test", scopes: ["webhooks:write"] })
  return { workspaceId: workspace.id, keyId: key.id, kind: "test" as const }
})

const refusal = <R>(effect: Effect.Effect<unknown, unknown, R>) =>
  Effect.map(Effect.flip(effect), (error) => {
    const failure = error as PostwireError
    return { code: failure.code, field: failure.field, message: failure.message }
  })

describe("Webhooks.createEndpoint", () => {
  it.effect("registers a public https endpoint and shows its whsec_ secret once", () =>
    Effect.gen(function* () {
      const caller = yield* aCaller
      const created = yield* Webhooks.createEndpoint(caller, {
        url: "https://hooks.example.com/postwire",
        events: ["post.published", "post.failed"]
      })

      assert.match(created.id, /^wh_[0-9A-Z]{26}$/)
      assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/)
      assert.deepStrictEqual(created.events, ["post.published", "post.failed"])
      assert.isTrue(created.active)
      const listed = yield* Webhooks.listEndpoints(caller, {})
      assert.deepStrictEqual(listed.data, [
        {
          id: created.id,
          url: created.url,
          events: created.events,
          active: true,
          disabled_reason: null,
          disabled_at: null,
          created_at: created.created_at,
          previous_secret_expires_at: null
        }
      ])
    }).pipe(Effect.provide(Engine(false))))

  it.effect.each([
    ["http://hooks.example.com/postwire", "it must use https"],
    ["https://10.0.0.1/hook", "a private address"],
    ["https://[::ffff:127.0.0.1]/hook", "a loopback address"],
    ["https://2130706433/hook", "a loopback address"],
    ["https://intranet.example.com/hook", "intranet.example.com resolves to 192.168.1.20, a private address"],
    ["https://localhost/hook", "a loopback address"],
    ["https://user:secret@hooks.example.com/hook", "must not carry a user name or password"],
    ["https://nowhere.example.com/hook", "nowhere.example.com does not resolve to an address"],
    ["hooks.example.com/postwire", "it is not an absolute URL"]
  ])("refuses %s as invalid_url: %s", ([url, reason]) =>
    Effect.gen(function* () {
      const caller = yield* aCaller
      const error = yield* refusal(Webhooks.createEndpoint(caller, { url, events: ["post.published"] }))

      assert.strictEqual(error.code, "invalid_url")
      assert.strictEqual(error.field, "url")
      assert.include(error.message, reason)
      assert.deepStrictEqual((yield* Webhooks.listEndpoints(caller, {})).data, [])
    }).pipe(Effect.provide(Engine(false))))

  it.effect("allows loopback targets over http only when the server allows them", () =>
    Effect.gen(function* () {
      const caller = yield* aCaller
      const created = yield* Webhooks.createEndpoint(caller, { url: "http://127.0.0.1:4000/hook", events: ["post.published"] })
      const refused = yield* refusal(Webhooks.createEndpoint(caller, { url: "http://10.1.2.3/hook", events: ["post.published"] }))

      assert.strictEqual(created.url, "http://127.0.0.1:4000/hook")
      assert.strictEqual(refused.code, "invalid_url")
    }).pipe(Effect.provide(Engine(true))))

  it.effect("refuses an event type listed twice, naming its position", () =>
    Effect.gen(function* () {
      const caller = yield* aCaller
      const error = yield* refusal(
        Webhooks.createEndpoint(caller, { url: "https://hooks.example.com/", events: ["post.failed", "post.published", "post.failed"] })
      )

      assert.strictEqual(error.code, "invalid_request")
      assert.strictEqual(error.field, "events[2]")
    }).pipe(Effect.provide(Engine(false))))
})

describe("Webhooks.testEndpoint", () => {
  const anEndpoint = (url: string, events: ReadonlyArray<"post.published" | "post.failed" | "account.connected"> = ["post.published"]) =>
    Effect.gen(function* () {
      const caller = yield* aCaller
      const endpoint = yield* Webhooks.createEndpoint(caller, { url, events })
      return { caller, endpoint }
    })

  it.effect("sends one synthetic event of the first subscribed type, marked test, and reports the answer", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 202)
      const { caller, endpoint } = yield* anEndpoint(`${receiver.origin}/hooks`, ["post.failed", "post.published"])

      const result = yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", endpoint.id))

      assert.deepStrictEqual(
        { delivered: result.delivered, status_code: result.status_code, type: result.type, failure: result.failure },
        { delivered: true, status_code: 202, type: "post.failed", failure: null }
      )
      assert.strictEqual(receiver.received.length, 1)
      const body = JSON.parse(receiver.received[0]!.body)
      assert.deepStrictEqual(Object.keys(body), ["id", "type", "created_at", "livemode", "data", "test"])
      assert.deepStrictEqual([body.id, body.type, body.test, body.livemode], [result.event_id, "post.failed", true, false])
      assert.strictEqual(receiver.received[0]!.headers["service-event-id"], result.event_id)
      assert.strictEqual(body.data.error.code, "platform_unavailable")
    }).pipe(Effect.provide(Engine(true))))

  it.effect("follows no redirect: a 302 is a failed delivery and its target hears nothing", () =>
    Effect.gen(function* () {
      const elsewhere = yield* aReceiver(() => 204)
      const redirecting = yield* aReceiver(() => ({ status: 302, headers: { location: `${elsewhere.origin}/stolen` } }))
      const { caller, endpoint } = yield* anEndpoint(`${redirecting.origin}/hooks`)

      const result = yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", endpoint.id))

      assert.strictEqual(result.delivered, false)
      assert.strictEqual(result.status_code, 302)
      assert.strictEqual(result.failure?.code, "webhook_delivery_failed")
      assert.include(result.failure?.message ?? "", "HTTP 302")
      assert.strictEqual(elsewhere.received.length, 0)
    }).pipe(Effect.provide(Engine(true))))

  it.effect("gives up on an endpoint that does not answer within 10 seconds", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => "hang")
      const { caller, endpoint } = yield* anEndpoint(`${receiver.origin}/hooks`)

      const test = yield* Effect.forkChild(Webhooks.testEndpoint(caller, Id.unchecked("webhook", endpoint.id)))
      yield* Effect.promise(() => receiver.waitFor(1))
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(test)

      assert.deepStrictEqual([result.delivered, result.status_code, result.duration_ms], [false, null, 10_000])
      assert.strictEqual(result.failure?.code, "webhook_delivery_failed")
      const error = renderError(result.failure!, "id", "https://postwire.test")
      assert.strictEqual(error.message, error.message_id)
      assert.strictEqual(error.message, "Endpoint webhook tidak menerima pengiriman: tidak ada balasan dalam 10 detik")
    }).pipe(Effect.provide(Engine(true))))

  it.effect("reports an attempt during which the wall clock stepped weeks ahead with a duration the delivery log can hold", () => {
    // Real time plus an offset, which the receiver moves 38 days ahead while it holds the request.
    const stepping = aMovableClock()
    return Effect.gen(function* () {
      const receiver = yield* aReceiver(() => {
        stepping.step(38 * 24 * 60 * 60 * 1000)
        return 204
      })
      const { caller, endpoint } = yield* anEndpoint(`${receiver.origin}/hooks`)

      const result = yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", endpoint.id)).pipe(
        Effect.provideService(Clock.Clock, stepping.clock)
      )

      assert.strictEqual(result.delivered, true)
      // An integer column of milliseconds (webhook_deliveries.duration_ms) holds at most 2^31 - 1.
      assert.strictEqual(result.duration_ms, 2_147_483_647)
    }).pipe(Effect.provide(Engine(true)))
  })

  it.effect("checks the address again when it sends, and sends nothing to a name that now resolves privately", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      const { caller, endpoint } = yield* anEndpoint(`http://rebinding.example.com:${receiver.port}/hooks`)
      const first = yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", endpoint.id))
      dns["rebinding.example.com"] = ["10.9.8.7"]
      const second = yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", endpoint.id)).pipe(
        Effect.ensuring(Effect.sync(() => {
          dns["rebinding.example.com"] = ["127.0.0.1"]
        }))
      )

      assert.isTrue(first.delivered)
      assert.strictEqual(second.delivered, false)
      assert.strictEqual(second.failure?.code, "invalid_url")
      assert.include(second.failure?.message ?? "", "10.9.8.7")
      assert.strictEqual(receiver.received.length, 1)
    }).pipe(Effect.provide(Engine(true))))

  it.effect("answers not_found for an endpoint of another workspace", () =>
    Effect.gen(function* () {
      const { endpoint } = yield* anEndpoint("https://hooks.example.com/hooks")
      const stranger = yield* aCaller

      const error = yield* refusal(Webhooks.testEndpoint(stranger, Id.unchecked("webhook", endpoint.id)))
      const deleteError = yield* refusal(Webhooks.deleteEndpoint(stranger, Id.unchecked("webhook", endpoint.id)))

      assert.deepStrictEqual([error.code, deleteError.code], ["not_found", "not_found"])
    }).pipe(Effect.provide(Engine(false))))
})

describe("endpoint signing secrets at rest", () => {
  /** The `v1` signatures a receiver got, and what each secret would have signed. */
  const v1s = (header: string | string[] | undefined) =>
    String(header)
      .split(",")
      .filter((part) => part.startsWith("v1="))
      .map((part) => part.slice(3))
  const signed = (secret: string, header: string | string[] | undefined, body: string) => {
    const t = String(header).split(",")[0]!.slice(2)
    return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")
  }
  const stored = (workspaceId: Id.WorkspaceId, id: string) =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      return Option.getOrThrow(yield* store.getEndpoint(workspaceId, Id.unchecked("webhook", id)))
    })

  /** An endpoint delivering to `receiver` whose stored secret is then `storedSecret` (as an older version or another key left it). */
  const anEndpointStoring = (
    receiver: { readonly origin: string },
    storedSecret: (endpoint: { readonly workspaceId: string; readonly id: string; readonly secret: string }) => string
  ) =>
    Effect.gen(function* () {
      const caller = yield* aCaller
      const created = yield* Webhooks.createEndpoint(caller, { url: `${receiver.origin}/hooks`, events: ["post.published"] })
      const id = Id.unchecked("webhook", created.id)
      const store = yield* WebhookStore
      const secret = storedSecret({ workspaceId: caller.workspaceId, id: created.id, secret: created.secret })
      const at = yield* Clock.currentTimeMillis
      yield* store.updateEndpoint(caller.workspaceId, id, { rotateSecret: { secret, previousExpiresAt: 0 } }, at)
      return { caller, id }
    })

  it.effect("stores the secret sealed for its endpoint only, and signs with the secret it showed", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      const caller = yield* aCaller
      const created = yield* Webhooks.createEndpoint(caller, { url: `${receiver.origin}/hooks`, events: ["post.published"] })
      const cipher = yield* CredentialsCipher
      const record = yield* stored(caller.workspaceId, created.id)

      assert.notInclude(record.secret, created.secret.slice("whsec_".length))
      assert.match(record.secret, /^pwc2\./)
      assert.deepStrictEqual(WebhookSecrets.open(cipher, record, record.secret), Option.some(created.secret))
      // Bound to its endpoint: the same value does not open for another endpoint or as an account's credentials.
      assert.isTrue(Option.isNone(WebhookSecrets.open(cipher, { workspaceId: caller.workspaceId, id: "wh_other" }, record.secret)))
      assert.isTrue(Option.isNone(cipher.open(record.secret, `${caller.workspaceId}/${created.id}`)))

      const result = yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", created.id))
      assert.isTrue(result.delivered)
      const [request] = receiver.received
      assert.deepStrictEqual(v1s(request!.headers["service-signature"]), [
        signed(created.secret, request!.headers["service-signature"], request!.body)
      ])
    }).pipe(Effect.provide(Engine(true))))

  it.effect("rolls to a sealed secret; during the overlap both sign, the new one first", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      const caller = yield* aCaller
      const created = yield* Webhooks.createEndpoint(caller, { url: `${receiver.origin}/hooks`, events: ["post.published"] })
      const rotated = yield* Webhooks.rotateSecret(caller, Id.unchecked("webhook", created.id), { expires_in_seconds: 3600 })
      const record = yield* stored(caller.workspaceId, created.id)

      assert.match(record.secret, /^pwc2\./)
      assert.match(record.previousSecret ?? "", /^pwc2\./)
      yield* Webhooks.testEndpoint(caller, Id.unchecked("webhook", created.id))
      const [request] = receiver.received
      const header = request!.headers["service-signature"]
      assert.deepStrictEqual(v1s(header), [signed(rotated.secret, header, request!.body), signed(created.secret, header, request!.body)])
    }).pipe(Effect.provide(Engine(true))))

  it.effect("a secret stored before secrets were sealed (whsec_ as is) still signs", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      const legacy = "whsec_stored-before-sealing-0123456789abcdefghijk"
      const { caller, id } = yield* anEndpointStoring(receiver, () => legacy)

      const result = yield* Webhooks.testEndpoint(caller, id)
      assert.isTrue(result.delivered)
      const [request] = receiver.received
      const header = request!.headers["service-signature"]
      assert.deepStrictEqual(v1s(header), [signed(legacy, header, request!.body)])
    }).pipe(Effect.provide(Engine(true))))

  it.effect("sends nothing when no master secret opens the stored secret, and says why in both languages", () =>
    Effect.gen(function* () {
      const receiver = yield* aReceiver(() => 204)
      // Sealed under a master secret this server does not list (one removed too early).
      const elsewhere = CredentialsCipher.make("a-master-secret-this-server-does-not-know-0123")
      const { caller, id } = yield* anEndpointStoring(receiver, (endpoint) => WebhookSecrets.seal(elsewhere, endpoint, endpoint.secret))

      const result = yield* Webhooks.testEndpoint(caller, id)
      assert.isFalse(result.delivered)
      assert.strictEqual(result.status_code, null)
      assert.strictEqual(result.failure?.code, "webhook_delivery_failed")
      assert.include(result.failure?.message ?? "", "nothing was sent: its signing secret does not open with this server's secrets")
      assert.include(renderError(result.failure!, "id", "https://postwire.test").message, "rahasia penandatanganannya tidak dapat dibuka")
      assert.strictEqual(receiver.received.length, 0)
    }).pipe(Effect.provide(Engine(true))))
})
