/**
 * The adapter conformance suite: every real platform adapter, run through `PlatformRouter`
 * against a fake server that speaks its platform's wire format, must pass it.
 *
 * It drives `publish` step by step as the publisher does (persisting the state, storing refreshed
 * credentials, calling again), without waiting for `pollAfterMs`.
 */
import { assert, describe, it } from "@effect/vitest"
import type { AccountRecord, CredentialsUpdate, PlatformClient, PlatformFailure, PublishInput, PublishStep } from "@postwire/core"
import type { ErrorCode } from "@postwire/domain"
import { PlatformRouter } from "@postwire/platforms"
import { NodePlatformHttp } from "@postwire/server"
import { Effect, Layer, References, Result, type Scope } from "effect"
import { FetchHttpClient } from "effect/http"
import type { FakeReply, FakeServer } from "./fakes/FakeServer.ts"

/** One step's result as the publisher receives it. */
export type StepResult = PublishStep & { readonly credentials?: CredentialsUpdate | undefined }

/** What publishing one target came to. */
export interface Publication {
  readonly steps: ReadonlyArray<StepResult>
  readonly published: Extract<PublishStep, { _tag: "Published" }> | undefined
  readonly failure: PlatformFailure | undefined
  /** The account as the engine would have stored it after the steps (credentials updated). */
  readonly account: AccountRecord
}

/**
 * How a router sends its calls: `fetch` (the fetch-based `HttpClient`, the library's default), or
 * `node` (the server's: keep-alive node:http connections while the tracer is off).
 */
export type Transport = "fetch" | "node"

/** The router configured for tests: tiny retry delays, everything else as given. */
export const aRouter = (options: PlatformRouter.Options) =>
  PlatformRouter.make({ retry: { attempts: 3, baseDelayMs: 1 }, requestTimeoutMs: 5_000, ...options }).pipe(
    Effect.provide(FetchHttpClient.layer)
  )

/**
 * The router on the server's node:http sender, its connections closed with the scope. Its calls
 * take the node:http path only while the tracer is off: run them under {@link tracerOff}.
 */
export const aNodeRouter = (options: PlatformRouter.Options) =>
  Effect.gen(function* () {
    const http = yield* Layer.build(NodePlatformHttp.layerWithHttpClient)
    return yield* PlatformRouter.make({ retry: { attempts: 3, baseDelayMs: 1 }, requestTimeoutMs: 5_000, ...options }).pipe(
      Effect.provide(http)
    )
  })

/** Runs with the tracer off, as the server does when no trace exporter is configured. */
export const tracerOff = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provideService(self, References.TracerEnabled, false)

/**
 * Publishes one target to the end, as the publisher would: each step's state is passed to the
 * next; refreshed credentials replace the account's. Stops at `Published` or at a failure.
 */
export const drive = (
  client: PlatformClient["Service"],
  input: PublishInput,
  maxSteps = 25
): Effect.Effect<Publication> =>
  Effect.gen(function* () {
    const steps: Array<StepResult> = []
    let account = input.account
    let state = input.state
    for (let i = 0; i < maxSteps; i++) {
      const result = yield* Effect.result(client.publish({ ...input, account, state }))
      if (Result.isFailure(result)) {
        const failure = result.failure
        if (failure.credentials !== undefined) account = { ...account, credentials: failure.credentials.credentials }
        return { steps, published: undefined, failure, account }
      }
      const step = result.success
      steps.push(step)
      if (step.credentials !== undefined) account = { ...account, credentials: step.credentials.credentials }
      if (step._tag === "Published") return { steps, published: step, failure: undefined, account }
      state = step.state
    }
    return yield* Effect.die(new Error(`still in progress after ${maxSteps} steps`))
  })

/** A documented way for the platform to fail, and what the adapter must make of it. */
export interface FailureScenario<F> {
  readonly name: string
  readonly arrange: (fake: F) => void
  /** The publish to attempt; defaults to the harness's typical one. */
  readonly input?: (fake: F) => PublishInput
  readonly code: ErrorCode
  readonly platformCode: string
  readonly retryable: boolean
  readonly needsReconnect?: boolean
}

/** How the suite drives one adapter and its fake. */
export interface AdapterHarness<F extends FakeServer> {
  readonly name: string
  readonly start: Effect.Effect<F, never, Scope.Scope>
  /** Router options that point the platform at the fake. */
  readonly options: (fake: F) => PlatformRouter.Options
  /** A typical publish to the fake's account; `credentials` replaces the account's. */
  readonly input: (fake: F, credentials?: string) => PublishInput
  readonly permalink: RegExp
  /** Posts the platform made. */
  readonly publishCount: (fake: F) => number
  /** Makes the platform need `polls` status checks before it is done. */
  readonly processFor: (fake: F, polls: number) => void
  /** The first call of a publish: a read where failures can be injected. */
  readonly firstRoute: string
  /** The platform's answer when it is down. */
  readonly unavailable: FakeReply
  /** The call that publishes. */
  readonly publishRoute: string
  /**
   * After the answer to the publish call is lost: `looked-up` (the adapter asks the platform and
   * finds the post) or `unknowable` (the platform offers no way to ask: the step fails,
   * retryable, without re-sending).
   */
  readonly lostPublishAnswer: "looked-up" | "unknowable"
  readonly failures: ReadonlyArray<FailureScenario<F>>
  readonly refresh: {
    /** Arranges a token that must be refreshed, and returns the account's credentials. */
    readonly arrange: (fake: F) => string
    readonly assertRefreshed: (fake: F, credentials: string) => void
    /** Arranges a token that cannot be refreshed, and returns the account's credentials. */
    readonly arrangeFailure: (fake: F) => string
    readonly failurePlatformCode: string
  }
  readonly quota?: { readonly arrange: (fake: F) => void; readonly platformCode: string }
  /** How the router sends its calls; `fetch` when not given. */
  readonly transport?: Transport | undefined
}

/** Runs the suite for one adapter. */
export const adapterConformance = <F extends FakeServer>(harness: AdapterHarness<F>): void => {
  const withFake = <A>(body: (fake: F, client: PlatformClient["Service"]) => Effect.Effect<A>, overrides: PlatformRouter.Options = {}) =>
    Effect.gen(function* () {
      const fake = yield* harness.start
      const options = { ...harness.options(fake), ...overrides }
      if (harness.transport === "node") return yield* tracerOff(Effect.flatMap(aNodeRouter(options), (client) => body(fake, client)))
      const client = yield* aRouter(options)
      return yield* body(fake, client)
    })

  describe(`adapter conformance: ${harness.name}${harness.transport === "node" ? " over node:http" : ""}`, () => {
    it.live("publishes once and returns the platform's permalink", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          const result = yield* drive(client, harness.input(fake))
          assert.isUndefined(result.failure, result.failure?.platformCode)
          assert.match(result.published?.permalink ?? "", harness.permalink)
          assert.isNotEmpty(result.published?.platformPostId ?? "")
          assert.strictEqual(harness.publishCount(fake), 1)
        })
      )
    )

    it.live("polls until the platform has finished processing", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          harness.processFor(fake, 3)
          const result = yield* drive(client, harness.input(fake))
          assert.isDefined(result.published, result.failure?.platformCode)
          const waits = result.steps.filter((s) => s._tag === "InProgress")
          assert.isAtLeast(waits.length, 3)
          assert.strictEqual(harness.publishCount(fake), 1)
        })
      )
    )

    it.live("resumes from every saved state without publishing again", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          harness.processFor(fake, 2)
          const input = harness.input(fake)
          const first = yield* drive(client, input)
          assert.isDefined(first.published, first.failure?.platformCode)
          const saved = first.steps.filter((s) => s._tag === "InProgress").map((s) => s.state)
          assert.isNotEmpty(saved)
          for (const state of saved) {
            // A crash after this state was saved: the next worker starts from it.
            const again = yield* drive(client, { ...input, account: first.account, state })
            assert.strictEqual(again.published?.platformPostId, first.published?.platformPostId)
          }
          assert.strictEqual(harness.publishCount(fake), 1)
        })
      )
    )

    it.live("never re-sends a publish whose answer was lost", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          fake.faults.injectAfter(harness.publishRoute, { lose: true })
          const result = yield* drive(client, harness.input(fake))
          assert.strictEqual(harness.publishCount(fake), 1)
          assert.strictEqual(fake.count(harness.publishRoute), 1)
          if (harness.lostPublishAnswer === "looked-up") {
            assert.isDefined(result.published, result.failure?.platformCode)
          } else {
            assert.strictEqual(result.failure?.code, "platform_unavailable")
            assert.strictEqual(result.failure?.retryable, true)
          }
        })
      )
    )

    it.live("retries an unavailable platform inside the step", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          fake.faults.inject(harness.firstRoute, harness.unavailable, 2)
          const result = yield* drive(client, harness.input(fake))
          assert.isDefined(result.published, result.failure?.platformCode)
          assert.strictEqual(harness.publishCount(fake), 1)
        })
      )
    )

    it.live("fails with a retryable platform_unavailable after the configured attempts", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          fake.faults.inject(harness.firstRoute, harness.unavailable, 10)
          const result = yield* drive(client, harness.input(fake))
          assert.strictEqual(result.failure?.code, "platform_unavailable")
          assert.strictEqual(result.failure?.retryable, true)
          assert.strictEqual(fake.count(harness.firstRoute), 3)
          assert.strictEqual(harness.publishCount(fake), 0)
        })
      )
    )

    it.live("treats a platform that does not answer as unavailable", () =>
      withFake(
        (fake, client) =>
          Effect.gen(function* () {
            fake.faults.inject(harness.firstRoute, { hang: true })
            const result = yield* drive(client, harness.input(fake))
            assert.strictEqual(result.failure?.code, "platform_unavailable")
            assert.strictEqual(result.failure?.platformCode, "timeout")
            assert.strictEqual(result.failure?.retryable, true)
          }),
        { requestTimeoutMs: 200, retry: { attempts: 1 } }
      )
    )

    for (const scenario of harness.failures) {
      it.live(`maps ${scenario.name} to ${scenario.code}`, () =>
        withFake((fake, client) =>
          Effect.gen(function* () {
            scenario.arrange(fake)
            const result = yield* drive(client, scenario.input?.(fake) ?? harness.input(fake))
            assert.isDefined(result.failure, "expected the publish to fail")
            assert.strictEqual(result.failure?.code, scenario.code)
            assert.strictEqual(result.failure?.platformCode, scenario.platformCode)
            assert.strictEqual(result.failure?.retryable, scenario.retryable)
            assert.strictEqual(result.failure?.needsReconnect === true, scenario.needsReconnect === true)
          })
        )
      )
    }

    it.live("refreshes an expiring token once and hands back the new credentials", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          const credentials = harness.refresh.arrange(fake)
          const result = yield* drive(client, harness.input(fake, credentials))
          assert.isDefined(result.published, result.failure?.platformCode)
          const updates = result.steps.flatMap((s) => (s.credentials === undefined ? [] : [s.credentials]))
          assert.lengthOf(updates, 1)
          assert.strictEqual(updates[0]!.accountId, result.account.id)
          harness.refresh.assertRefreshed(fake, updates[0]!.credentials)
        })
      )
    )

    it.live("ends in token_expired with needsReconnect when the token cannot be refreshed", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          const credentials = harness.refresh.arrangeFailure(fake)
          const result = yield* drive(client, harness.input(fake, credentials))
          assert.strictEqual(result.failure?.code, "token_expired")
          assert.strictEqual(result.failure?.needsReconnect, true)
          assert.strictEqual(result.failure?.retryable, false)
          assert.strictEqual(result.failure?.platformCode, harness.refresh.failurePlatformCode)
          assert.strictEqual(harness.publishCount(fake), 0)
        })
      )
    )

    it.live("ends in token_expired with needsReconnect when the credentials are unreadable", () =>
      withFake((fake, client) =>
        Effect.gen(function* () {
          const result = yield* drive(client, harness.input(fake, "{not json"))
          assert.strictEqual(result.failure?.code, "token_expired")
          assert.strictEqual(result.failure?.needsReconnect, true)
          assert.strictEqual(fake.requests.length, 0)
        })
      )
    )

    const quota = harness.quota
    if (quota !== undefined) {
      it.live("stops before publishing when the daily quota is used up", () =>
        withFake((fake, client) =>
          Effect.gen(function* () {
            quota.arrange(fake)
            const result = yield* drive(client, harness.input(fake))
            assert.strictEqual(result.failure?.code, "quota_exceeded")
            assert.strictEqual(result.failure?.retryable, true)
            assert.strictEqual(result.failure?.platformCode, quota.platformCode)
            assert.isDefined(result.failure?.details?.limit)
            assert.strictEqual(harness.publishCount(fake), 0)
          })
        )
      )
    }
  })
}
