/**
 * The publisher's own cost per target, apart from the database, the driver and HTTP: the engine in
 * memory (`MemoryPublishingStore`, `MemoryStore`) and a platform that answers at once, in this
 * process. Each target takes the two steps of a container platform (the container, then the
 * publish), through `Publisher.publishDueTargets` rounds of 128, as a worker's claims and starts
 * do. After a warm-up burst of the same size, it prints the CPU time per target (user + system,
 * this process) and the heap allocated per target (V8's sampling heap profiler, collected objects
 * included) for a measured burst, `BENCH_STEPS_ROUNDS` times (default 5). Log lines below warnings
 * are left out.
 *
 * What it is for: comparing two builds of the publisher's loop (`Publisher.ts` and its helpers)
 * where the whole worker's figures (`publishing.ts`) move more with the machine's load than with
 * the change. Run it from each checkout, alternating:
 * `node --conditions=@postwire/source --import tsx bench/publishing-steps.ts`.
 */
import { Session } from "node:inspector"
import { Media, Posts, Publisher, PlatformClient, type PublishStep, Workspaces } from "@postwire/core"
import { Effect, References } from "effect"
import { memoryEngine } from "../test/support/MemoryEngine.ts"
import { aPng } from "../test/support/Media.ts"

const burst = Number(process.env.BENCH_STEPS_TARGETS ?? 2_000)
const rounds = Number(process.env.BENCH_STEPS_ROUNDS ?? 5)

/** A container platform that answers at once: the first step makes a container, the next publishes it. */
const platform = PlatformClient.of({
  publish: (input) =>
    Effect.succeed<PublishStep>(
      input.state === null
        ? { _tag: "InProgress", state: { container: `c-${input.target.id}` }, pollAfterMs: 0 }
        : { _tag: "Published", platformPostId: `m-${input.target.id}`, permalink: `https://social.test/p/${input.target.id}`, state: input.state }
    ),
  creatorInfo: () => Effect.die(new Error("not used by the publisher"))
})

/** Total bytes of a sampling heap profile. */
const sampledBytes = (node: { selfSize: number; children: ReadonlyArray<unknown> }): number =>
  node.selfSize + node.children.reduce<number>((sum, child) => sum + sampledBytes(child as typeof node), 0)

const post = (session: Session, method: string, params: object = {}) =>
  new Promise<any>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))

const program = Effect.gen(function* () {
  const ws = yield* Workspaces.createWorkspace({ name: "bench" })
  const key = yield* Workspaces.createKey(ws.id, { kind: "live", scopes: ["posts:read", "posts:write"] })
  const profile = yield* Workspaces.createProfile(ws.id, { name: "Bench" })
  const accounts = yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => i), (i) =>
    Workspaces.createAccount(ws.id, {
      profileId: profile.id,
      platform: "textpost",
      sandbox: false,
      handle: `bench${i}`,
      credentials: JSON.stringify({ access_token: `token-${i}` }),
      externalId: `2500000000000000${i}`
    })
  )
  const caller = { workspaceId: ws.id, keyId: key.id, kind: "live" as const }
  const media = yield* Media.uploadMedia(caller, { data: Buffer.from(aPng({ width: 2, height: 2 })).toString("base64") })
  const settings = { ...Publisher.defaults("bench"), perAccountConcurrency: 128 }
  const session = new Session()
  session.connect()
  yield* Effect.promise(() => post(session, "HeapProfiler.enable"))

  /** Writes `burst` queued posts of one target each, then publishes them all; CPU ms and KB allocated per target. */
  const pass = (measured: boolean) =>
    Effect.gen(function* () {
      for (let i = 0; i < burst; i++) {
        yield* Posts.createPost(caller, {
          profile_id: profile.id,
          caption: `Fresh bread at ${i}`,
          media: [media.id],
          targets: [{ account_id: accounts[i % accounts.length]!.id }],
          approval: { mode: "none" }
        } as never)
      }
      if (measured) {
        yield* Effect.promise(() =>
          post(session, "HeapProfiler.startSampling", {
            samplingInterval: 1024,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true
          })
        )
      }
      const cpu = process.cpuUsage()
      let steps = 0
      for (;;) {
        const outcomes = yield* Publisher.publishDueTargets(settings)
        steps += outcomes.length
        if (outcomes.length === 0) break
      }
      const used = process.cpuUsage(cpu)
      const allocated = measured ? sampledBytes((yield* Effect.promise(() => post(session, "HeapProfiler.stopSampling"))).profile.head) : 0
      return { steps, cpuMs: (used.user + used.system) / 1000 / burst, allocatedKb: allocated / 1024 / burst }
    })

  yield* pass(false)
  for (let i = 0; i < rounds; i++) {
    const r = yield* pass(true)
    console.log(
      `round ${i + 1}: ${burst} targets, ${r.steps} steps; CPU ${r.cpuMs.toFixed(3)} ms/target; heap allocated ${r.allocatedKb.toFixed(1)} KB/target`
    )
  }
})

// Warnings only: a line per published target to the terminal would be most of what is measured.
await Effect.runPromise(program.pipe(Effect.provideService(References.MinimumLogLevel, "Warn"), Effect.provide(memoryEngine(platform))))
