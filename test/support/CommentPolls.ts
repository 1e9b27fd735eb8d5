/**
 * The comment poller's progress on one published target, read from the server's own store: the
 * positive signal a test waits for before it asserts that a poll stored or announced nothing.
 */
import { CommentStore, type CommentPollState } from "@postwire/core"
import { Ids as Id } from "@postwire/domain"
import { Option } from "effect"
import { eventually } from "./Eventually.ts"
import type { TestServer } from "./TestServer.ts"

/** How the server schedules the comment polls of a target of its first-run workspace (or `workspaceId`'s). */
export const pollStateOf = async (server: TestServer, targetId: string, workspaceId = server.workspaceId): Promise<CommentPollState> => {
  const key = { workspaceId: Id.unchecked("workspace", workspaceId), targetId: Id.unchecked("target", targetId) }
  const state = await server.read(CommentStore.use((store) => store.getPollState(key)))
  return Option.getOrThrowWith(state, () => new Error(`no comment polls for target ${targetId}`))
}

/**
 * Waits until the poller has caught up with the server's clock `at` on a target: no poll of it is
 * held and none is due (the one due ran to its end, was put off for the budget, or polling
 * stopped). Returns the state then.
 */
export const caughtUp = (server: TestServer, targetId: string, at: number, workspaceId = server.workspaceId): Promise<CommentPollState> =>
  eventually(
    () => pollStateOf(server, targetId, workspaceId),
    (state) => state.leaseOwner === null && (state.nextPollAt === null || state.nextPollAt > at),
    `the comment poll of ${targetId} due at ${new Date(at).toISOString()} to end`
  )
