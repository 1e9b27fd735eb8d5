/**
 * The engine inside a Node app, with no HTTP in between: posts, approvals, media, accounts and
 * webhooks on the embedded database or PostgreSQL, with the publisher and the webhook
 * dispatcher running in-process, and the events they cause handed to your callbacks.
 *
 * Two faces, one set of services: {@link make} gives a Promise API, {@link layer} gives the
 * same as an Effect layer for apps written with Effect (call `@postwire/core`'s use-cases
 * with it). Guide: docs/embedding.md.
 *
 * @example
 * ```ts
 * import { PostwireEngine } from "@postwire/server"
 *
 * const engine = await PostwireEngine.make({ database: "embedded", dataDir: "./.postwire" })
 * engine.events.subscribe((event) => console.log(event.type, event.data))
 * const { id } = await engine.workspaces.create({ name: "acme" })
 * const acme = engine.workspace(id)
 * const profile = await acme.profiles.create({ name: "Main" })
 * const account = await acme.accounts.create({ profile_id: profile.id, platform: "textpost", sandbox: true })
 * await acme.posts.create({ profile_id: profile.id, caption: "Hello", media: [], targets: [{ account_id: account.id }], approval: { mode: "none" } })
 * // … post.publishing, then post.published arrive at the subscriber
 * await engine.close()
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import {
  AnalyticsStore,
  type Caller,
  type CommentStore,
  ConnectStore,
  MediaStore,
  type PublishingStore,
  type Store,
  WebhookStore,
  Workspaces
} from "@postwire/core"
import {
  type Account,
  allScopes,
  type Approval,
  type CurrentKey,
  Ids,
  type KeyKind,
  type Locale,
  type Media as MediaWire,
  type Post,
  type Webhook
} from "@postwire/domain"
import { CreateAccount, CreateProfile, CreateWorkspace } from "../admin/AdminApi.ts"
import { backgroundLayer } from "../Background.ts"
import { engineLayer } from "../Server.ts"
import { decodeInput, startFailure, toPromiseFailure } from "./EngineError.ts"
import { contractHandlers, deriveEngineGroups, type EngineGroups } from "./EngineFacade.ts"
import { type EmbedOptions, embedStoreLayer, resolveEmbedSettings } from "./EmbedOptions.ts"
import { type EventHandler, EventFeed, layerObservedCommentStore, layerObservedStores } from "./EventFeed.ts"

export type { EngineEvent, EventHandler } from "./EventFeed.ts"
export { PostwireEngineError, PostwireStartError } from "./EngineError.ts"
/**
 * The wire shapes of what `@postwire/core`'s use-cases return, for apps that call them through
 * {@link layer}: `Views.post(yield* Posts.getPost(caller, id), "en", publicUrl)` is the body of
 * `GET /v1/posts/{id}`, and so on (`postList`, `created`, `retried`, `decision`, `batch`, ...).
 */
export * as Views from "../http/Views.ts"

/** Options of {@link make} and {@link layer}. */
export interface EngineOptions extends EmbedOptions {
  /** Language of `message` in errors and of post views. Default `en`. */
  readonly locale?: Locale | undefined
}

/** The stores, with writes that carry events reported to the {@link EventFeed}. */
const storesWithFeed = (
  base: Layer.Layer<Store | WebhookStore | PublishingStore | ConnectStore | CommentStore | MediaStore | AnalyticsStore, unknown>
) =>
  Layer.mergeAll(
    Layer.effect(AnalyticsStore)(Effect.gen(function* () {
      return yield* AnalyticsStore
    })),
    layerObservedStores,
    Layer.effect(WebhookStore)(Effect.gen(function* () {
      return yield* WebhookStore
    })),
    Layer.effect(ConnectStore)(Effect.gen(function* () {
      return yield* ConnectStore
    })),
    layerObservedCommentStore,
    Layer.effect(MediaStore)(Effect.gen(function* () {
      return yield* MediaStore
    }))
  ).pipe(Layer.provide(base), Layer.provideMerge(EventFeed.layer))

/**
 * Everything `@postwire/core`'s use-cases need, with the publisher, the permalink backfill
 * and the webhook dispatcher running for as long as the layer lives.
 */
export const layer = (options: EngineOptions = {}) =>
  Layer.unwrap(
    Effect.sync(() => {
      const settings = { ...resolveEmbedSettings(options), role: "all" as const }
      return backgroundLayer(settings).pipe(
        Layer.provideMerge(engineLayer(settings)),
        Layer.provideMerge(storesWithFeed(embedStoreLayer(options, settings)))
      )
    })
  )

/** The services {@link layer} provides. */
export type EngineServices = Layer.Success<ReturnType<typeof layer>>

/** A group of the derived facade, with the documented signatures of its long-standing methods kept as they are. */
type Facade<G extends keyof EngineGroups, Documented> = Documented & Omit<EngineGroups[G], keyof Documented>

/**
 * One workspace, as seen by the engine (what an API key of the workspace could do, and the admin
 * parts). Every endpoint of the public API is here, derived from the contract (see
 * `EngineFacade.ts`): each path parameter as a string, then the body or the query, then
 * `{ idempotencyKey }` where the endpoint takes one; a list answers one page.
 */
export interface EngineWorkspace extends Omit<EngineGroups, "approvals" | "profiles" | "accounts" | "media" | "posts" | "webhooks"> {
  readonly id: string
  readonly profiles: Facade<
    "profiles",
    {
      readonly create: (input: typeof CreateProfile.Encoded) => Promise<{ readonly id: string }>
      readonly list: (query?: PageQuery) => Promise<typeof Account.ProfileList.Type>
    }
  >
  readonly accounts: Facade<
    "accounts",
    {
      /** Connects an account; `sandbox: true` publishes to the built-in simulated platform. */
      readonly create: (input: typeof CreateAccount.Encoded) => Promise<{ readonly id: string }>
      readonly get: (id: string) => Promise<Account.Account>
      readonly list: (query?: PageQuery & { readonly profile_id?: string; readonly platform?: string }) => Promise<typeof Account.AccountList.Type>
    }
  >
  readonly media: Facade<
    "media",
    {
      /** Uploads base64 bytes; the type is read from the bytes. */
      readonly upload: (input: typeof MediaWire.UploadMediaRequest.Encoded) => Promise<MediaWire.Media>
      readonly get: (id: string) => Promise<MediaWire.Media>
    }
  >
  readonly posts: Facade<
    "posts",
    {
      readonly create: (input: typeof Post.CreatePostRequest.Encoded) => Promise<Post.CreatePostResponse>
      /** Creates 1 to 31 posts, each created or refused on its own, as `POST /v1/posts/batch` does. */
      readonly createBatch: (input: typeof Post.CreatePostBatchRequest.Encoded) => Promise<Post.CreatePostBatchResponse>
      readonly validate: (input: typeof Post.CreatePostRequest.Encoded) => Promise<Post.ValidatePostResponse>
      readonly get: (id: string) => Promise<Post.Post>
      readonly list: (query?: ListPostsInput) => Promise<Post.PostList>
      readonly update: (id: string, input: typeof Post.UpdatePostRequest.Encoded) => Promise<Post.Post>
      readonly cancel: (id: string) => Promise<Post.Post>
      readonly retry: (id: string) => Promise<Post.RetryPostResponse>
    }
  >
  readonly webhooks: Facade<
    "webhooks",
    {
      readonly create: (input: typeof Webhook.CreateWebhookRequest.Encoded) => Promise<Webhook.CreatedWebhookEndpoint>
      readonly list: (query?: PageQuery) => Promise<Webhook.WebhookEndpointList>
      readonly delete: (id: string) => Promise<Webhook.DeletedWebhookEndpoint>
    }
  >
}

/** A page request: `limit` 1–100 (default 25) and the `cursor.next` of the page before. */
export interface PageQuery {
  readonly limit?: number
  readonly cursor?: string
}

/** `posts.list` filters, as `GET /v1/posts` takes them. */
export type ListPostsInput = Omit<typeof Post.ListPostsQuery.Encoded, "limit"> & { readonly limit?: number }

/** The engine with a Promise API. */
export interface PostwireEngine {
  readonly workspaces: {
    /** Creates a workspace; `allowed_redirect_domains` lists where approval pages may send people afterwards. */
    readonly create: (input: typeof CreateWorkspace.Encoded) => Promise<{ readonly id: string }>
  }
  /**
   * Acts in one workspace. `mode: "test"` behaves like a test key (sandbox accounts only);
   * the default `live` may post to every account of the workspace.
   */
  readonly workspace: (id: string, options?: { readonly mode?: KeyKind }) => EngineWorkspace
  readonly approvals: {
    /** Decides an approval by its token (the last part of `approval.url`), as the approval page does. */
    readonly decide: (token: string, input: typeof Approval.DecisionRequest.Encoded) => Promise<Approval.DecisionResponse>
  }
  readonly events: {
    /**
     * Calls `handler` with every event this process causes (`post.published`, …), after it is
     * stored. Returns a function that stops the calls. For delivery to other processes, with
     * retries, register a webhook.
     */
    readonly subscribe: (handler: EventHandler) => () => void
  }
  /** Stops the background work (letting running steps finish) and closes the database. */
  readonly close: () => Promise<void>
}

/**
 * Starts the engine: opens (and migrates) the database, starts the publisher and the webhook
 * dispatcher, and resolves once everything is ready. Call `close()` when the app stops.
 */
export const make = async (options: EngineOptions = {}): Promise<PostwireEngine> => {
  const locale = options.locale ?? "en"
  const settings = resolveEmbedSettings(options)
  const publicUrl = settings.publicUrl
  // The handlers of the public API run in-process: the facade calls them (see EngineFacade.ts).
  const runtime = ManagedRuntime.make(contractHandlers(layer(options)))
  const started = await runtime.runPromiseExit(Effect.void)
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    throw startFailure(started.cause, settings)
  }
  const feed = await runtime.runPromise(
    Effect.gen(function* () {
      return yield* EventFeed
    })
  )
  const asPromise = toPromiseFailure(locale, publicUrl)
  const run = <A, E>(effect: Effect.Effect<A, E, EngineServices>): Promise<A> => runtime.runPromise(asPromise(effect))

  const context = await runtime.runPromise(Effect.context<never>())
  const runAny = <A>(effect: Effect.Effect<A, unknown, never>): Promise<A> => runtime.runPromise(asPromise(effect))
  const facadeFor = (key: CurrentKey["Service"]) => deriveEngineGroups(context, { key, locale }, runAny)

  const workspace = (id: string, { mode = "live" }: { readonly mode?: KeyKind } = {}): EngineWorkspace => {
    const caller: Caller = { workspaceId: Ids.unchecked("workspace", id), keyId: Ids.unchecked("key", "engine"), kind: mode }
    const derived = facadeFor({ ...caller, scopes: allScopes, approvalLinks: "shown" })
    const { approvals: _approvals, ...groups } = derived
    return {
      ...groups,
      id,
      profiles: {
        ...derived.profiles,
        // The admin API's: a profile by name, answering its id.
        create: (input) =>
          run(Effect.flatMap(decodeInput(CreateProfile, "body")(input), (body) => Workspaces.createProfile(caller.workspaceId, body)))
      },
      accounts: {
        ...derived.accounts,
        // The admin API's: an account with its credentials, or a sandbox one.
        create: (input) =>
          run(
            Effect.flatMap(decodeInput(CreateAccount, "body")(input), (body) =>
              Workspaces.createAccount(caller.workspaceId, {
                profileId: Ids.unchecked("profile", body.profile_id),
                platform: body.platform,
                sandbox: body.sandbox,
                handle: body.handle,
                dailyQuota: body.daily_quota,
                simulate: body.simulate,
                credentials: body.credentials === undefined ? undefined : JSON.stringify(body.credentials),
                externalId: body.external_id
              })
            )
          )
      }
    }
  }
  // A decision's token is its credential: no workspace acts.
  const approvals = facadeFor({
    workspaceId: Ids.unchecked("workspace", "none"),
    keyId: Ids.unchecked("key", "engine"),
    kind: "live",
    scopes: [],
    approvalLinks: "shown"
  }).approvals

  return {
    workspaces: {
      create: (input) =>
        run(
          Effect.flatMap(decodeInput(CreateWorkspace, "body")(input), (body) =>
            Workspaces.createWorkspace({ name: body.name, allowedRedirectDomains: body.allowed_redirect_domains })
          )
        )
    },
    workspace,
    approvals: { decide: approvals.decide },
    events: { subscribe: (handler) => feed.subscribe(handler) },
    close: () => runtime.dispose()
  }
}

