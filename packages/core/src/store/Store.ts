/**
 * The `Store` service: the engine's reads and writes of its core aggregates, one port per
 * aggregate served together: workspaces and keys (`WorkspaceStore.ts`), accounts and profiles
 * (`AccountStore.ts`), posts and the media they name (`PostStore.ts`), and the outbox
 * (`Outbox.ts`), each module with the records it stores. One interface, several implementations
 * (in memory, PostgreSQL, the embedded database), one conformance suite.
 *
 * Each method is atomic on its own: a post and the events its change causes are written in
 * one transaction (the outbox), and a save fails with `VersionConflict` when someone else saved
 * the post first.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { AccountStoreShape } from "./AccountStore.ts"
import type { OutboxStoreShape } from "./Outbox.ts"
import type { PostStoreShape } from "./PostStore.ts"
import type { WorkspaceStoreShape } from "./WorkspaceStore.ts"

/** The core aggregates' ports, implemented together (they share one database and its transactions). */
export interface StoreShape extends WorkspaceStoreShape, AccountStoreShape, PostStoreShape, OutboxStoreShape {}

/** The engine's storage of its core aggregates. */
export class Store extends Context.Service<Store, StoreShape>()("postwire/Store") {}
