/**
 * First start: on an empty database, create workspace `default` with a test key holding every
 * scope, a profile, and one sandbox account per platform, and say how to use them.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Store, Workspaces } from "@postwire/core"
import { allScopes, platforms } from "@postwire/domain"

/** What the first start created. */
export interface FirstRun {
  readonly workspaceId: string
  readonly testKey: string
  readonly profileId: string
  readonly accounts: ReadonlyArray<{ readonly id: string; readonly platform: string }>
}

/**
 * The simulated comments of the first start's sandbox accounts: three, a minute apart, after each
 * post publishes (docs/comments.md "Sandbox comments").
 */
export const firstRunComments = { count: 3, every_seconds: 60 } as const

/** Seeds an empty database; returns what it made, or `undefined` when the database had data. */
export const seedFirstRun = Effect.fn("bootstrap.seed")(function* () {
  const store = yield* Store
  if ((yield* store.countWorkspaces()) > 0) return undefined
  const workspace = yield* Workspaces.createWorkspace({ name: "default", allowedRedirectDomains: ["example.com"] })
  const key = yield* Workspaces.createKey(workspace.id, { kind: "test", scopes: allScopes })
  const profile = yield* Workspaces.createProfile(workspace.id, { name: "Default profile" })
  const accounts: Array<{ id: string; platform: string }> = []
  for (const platform of platforms) {
    const account = yield* Workspaces.createAccount(workspace.id, {
      profileId: profile.id,
      platform,
      sandbox: true,
      handle: `sandbox-${platform}`,
      // Comments arrive under what they publish, so the comments API shows something on a first try.
      simulate: { comments: firstRunComments }
    })
    accounts.push({ id: account.id, platform })
  }
  return { workspaceId: workspace.id, testKey: key.key, profileId: profile.id, accounts } satisfies FirstRun
})
