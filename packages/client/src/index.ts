/**
 * `@postwire/client`: the typed SDK of the Postwire API, derived from the contract in
 * `@postwire/domain`. Use {@link Postwire} with Promises, or the {@link PostwireClient}
 * service with Effect.
 *
 * @since 0.1.0
 */
export * from "./ClientError.ts"
export * from "./Page.ts"
export * from "./Postwire.ts"
export { PostwireClient } from "./PostwireClient.ts"
export type {
  PostwireClientAccounts,
  PostwireClientApprovals,
  PostwireClientComments,
  PostwireClientDeliveries,
  PostwireClientEvents,
  PostwireClientMedia,
  PostwireClientOptions,
  PostwireClientPosts,
  PostwireClientProfiles,
  PostwireClientService,
  PostwireClientWebhooks
} from "./PostwireClient.ts"
export * from "./Requests.ts"
export * from "./Resources.ts"
