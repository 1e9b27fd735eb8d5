/**
 * Profiles through the API: create, read, rename and delete. A profile groups the accounts of
 * one brand or client; it cannot be deleted while it has accounts that are not disconnected or
 * posts that have not finished.
 *
 * @since 0.2.0
 */
import type { Ids as Id } from "@postwire/domain"
import { Effect, Option } from "effect"
import { type Account, ErrorDetail, PostwireError } from "@postwire/domain"
import type { Caller } from "../Caller.ts"
import { Ids } from "../ids/Ids.ts"
import { Store } from "../store/Store.ts"
import { profileView } from "./Accounts.ts"
import { ConnectStore } from "./ConnectStore.ts"

const now = Effect.clockWith((c) => c.currentTimeMillis)

const notFound = () => new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("profile") } })

const invalidState = (detail: ReturnType<typeof ErrorDetail.reason>) =>
  new PostwireError({ code: "invalid_state", details: { resource: ErrorDetail.resource("profile"), detail } })

/** Creates a profile in the caller's workspace. */
export const createProfile = Effect.fn("profiles.create")(function* (caller: Caller, request: Account.CreateProfileRequest) {
  const store = yield* Store
  const id = yield* Ids.use((ids) => ids.make("profile"))
  const record = { id, workspaceId: caller.workspaceId, name: request.name.trim(), createdAt: yield* now }
  yield* store.createProfile(record)
  return profileView(record)
})

/** One profile of the caller's workspace. */
export const getProfile = Effect.fn("profiles.get")(function* (caller: Caller, id: Id.ProfileId) {
  const store = yield* Store
  const found = yield* store.getProfile(caller.workspaceId, id)
  if (Option.isNone(found)) return yield* Effect.fail(notFound())
  return profileView(found.value)
})

/** Renames a profile; an empty change returns it as it is. */
export const updateProfile = Effect.fn("profiles.update")(function* (
  caller: Caller,
  id: Id.ProfileId,
  request: Account.UpdateProfileRequest
) {
  const connections = yield* ConnectStore
  if (request.name !== undefined) {
    const renamed = yield* connections.renameProfile(caller.workspaceId, id, request.name.trim())
    if (!renamed) return yield* Effect.fail(notFound())
  }
  return yield* getProfile(caller, id)
})

/** Deletes a profile that has no live accounts and no unfinished posts. */
export const deleteProfile = Effect.fn("profiles.delete")(function* (caller: Caller, id: Id.ProfileId) {
  const connections = yield* ConnectStore
  const outcome = yield* connections.deleteProfile(caller.workspaceId, id)
  switch (outcome._tag) {
    case "NotFound":
      return yield* Effect.fail(notFound())
    case "HasAccounts":
      return yield* Effect.fail(invalidState(ErrorDetail.reason("profile_has_accounts", { count: outcome.count })))
    case "HasUnfinishedPosts":
      return yield* Effect.fail(invalidState(ErrorDetail.reason("profile_has_unfinished_posts")))
    case "Deleted":
      return { id, deleted: true as const } satisfies Account.DeletedProfile
  }
})
