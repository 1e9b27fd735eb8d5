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
  Accounts,
  Approvals,
  type CommentStore,
  ConnectStore,
  MediaStore,
  type Caller,
  Media,
  PostBatch,
  Posts,
  type PublishingStore,
  type Store,
  WebhookStore,
  Webhooks,
  Workspaces
} from "@postwire/core"
import {
  Account,
  Approval,
  Ids,
  type KeyKind,
  type Locale,
  Media as MediaWire,
  Post,
  Webhook
} from "@postwire/domain"
import { CreateAccount, CreateProfile, CreateWorkspace } from "../admin/AdminApi.ts"
import { backgroundLayer } from "../Background.ts"
import { engineLayer } from "../Server.ts"
import { decodeInput, startFailure, toPromiseFailure } from "./EngineError.ts"
import * as Views from "../http/Views.ts"
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
const storesWithFeed = (base: Layer.Layer<Store | WebhookStore | PublishingStore | ConnectStore | CommentStore | MediaStore, unknown>) =>
  Layer.mergeAll(
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

/** One workspace, as seen by the engine (what an API key of the workspace could do, and the admin parts). */
export interface EngineWorkspace {
  readonly id: string
  readonly profiles: {
    readonly create: (input: typeof CreateProfile.Encoded) => Promise<{ readonly id: string }>
    readonly list: (query?: PageQuery) => Promise<typeof Account.ProfileList.Type>
  }
  readonly accounts: {
    /** Connects an account; `sandbox: true` publishes to the built-in simulated platform. */
    readonly create: (input: typeof CreateAccount.Encoded) => Promise<{ readonly id: string }>
    readonly get: (id: string) => Promise<Account.Account>
    readonly list: (query?: PageQuery & { readonly profile_id?: string; readonly platform?: string }) => Promise<typeof Account.AccountList.Type>
  }
  readonly media: {
    /** Uploads base64 bytes; the type is read from the bytes. */
    readonly upload: (input: typeof MediaWire.UploadMediaRequest.Encoded) => Promise<MediaWire.Media>
    readonly get: (id: string) => Promise<MediaWire.Media>
  }
  readonly posts: {
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
  readonly webhooks: {
    readonly create: (input: typeof Webhook.CreateWebhookRequest.Encoded) => Promise<Webhook.CreatedWebhookEndpoint>
    readonly list: (query?: PageQuery) => Promise<Webhook.WebhookEndpointList>
    readonly delete: (id: string) => Promise<Webhook.DeletedWebhookEndpoint>
  }
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

const withLimit = <Q extends { readonly limit?: number }>(query: Q | undefined) => {
  const { limit, ...rest } = query ?? ({} as Q)
  return limit === undefined ? rest : { ...rest, limit: String(limit) }
}

/**
 * Starts the engine: opens (and migrates) the database, starts the publisher and the webhook
 * dispatcher, and resolves once everything is ready. Call `close()` when the app stops.
 */
export const make = async (options: EngineOptions = {}): Promise<PostwireEngine> => {
  const locale = options.locale ?? "en"
  const settings = resolveEmbedSettings(options)
  const publicUrl = settings.publicUrl
  const runtime = ManagedRuntime.make(layer(options))
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

  const workspace = (id: string, { mode = "live" }: { readonly mode?: KeyKind } = {}): EngineWorkspace => {
    const caller: Caller = { workspaceId: Ids.unchecked("workspace", id), keyId: Ids.unchecked("key", "engine"), kind: mode }
    return {
      id,
      profiles: {
        create: (input) =>
          run(Effect.flatMap(decodeInput(CreateProfile, "body")(input), (body) => Workspaces.createProfile(caller.workspaceId, body))),
        list: (query) =>
          run(Effect.flatMap(decodeInput(Account.ListProfilesQuery, "query")(withLimit(query)), (q) => Accounts.listProfiles(caller, q)))
      },
      accounts: {
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
          ),
        get: (accountId) => run(Accounts.getAccount(caller, Ids.unchecked("account", accountId))),
        list: (query) =>
          run(Effect.flatMap(decodeInput(Account.ListAccountsQuery, "query")(withLimit(query)), (q) => Accounts.listAccounts(caller, q)))
      },
      media: {
        upload: (input) =>
          run(Effect.flatMap(decodeInput(MediaWire.UploadMediaRequest, "body")(input), (body) => Media.uploadMedia(caller, body))),
        get: (mediaId) => run(Effect.map(Media.getMedia(caller, Ids.unchecked("media", mediaId)), (m) => Views.media(m, locale, publicUrl)))
      },
      posts: {
        create: (input) =>
          run(
            Effect.flatMap(decodeInput(Post.CreatePostRequest, "body")(input), (body) =>
              Effect.map(Posts.createPost(caller, body), (p) => Views.created(p, locale, publicUrl))
            )
          ),
        createBatch: (input) =>
          run(
            Effect.flatMap(decodeInput(Post.CreatePostBatchRequest, "body")(input), (body) =>
              Effect.map(PostBatch.createPostBatch(caller, body), (r) => Views.batch(r, locale, publicUrl))
            )
          ),
        validate: (input) =>
          run(
            Effect.flatMap(decodeInput(Post.CreatePostRequest, "body")(input), (body) =>
              Effect.map(Posts.validatePost(caller, body), (r) => Views.validation(r, locale, publicUrl))
            )
          ),
        get: (postId) => run(Effect.map(Posts.getPost(caller, Ids.unchecked("post", postId)), (p) => Views.post(p, locale, publicUrl))),
        list: (query) =>
          run(
            Effect.flatMap(decodeInput(Post.ListPostsQuery, "query")(withLimit(query)), (q) =>
              Effect.map(Posts.listPosts(caller, q), (page) => Views.postList(page, locale, publicUrl))
            )
          ),
        update: (postId, input) =>
          run(
            Effect.flatMap(decodeInput(Post.UpdatePostRequest, "body")(input), (body) =>
              Effect.map(Posts.updatePost(caller, Ids.unchecked("post", postId), body), (p) => Views.post(p, locale, publicUrl))
            )
          ),
        cancel: (postId) => run(Effect.map(Posts.cancelPost(caller, Ids.unchecked("post", postId)), (p) => Views.post(p, locale, publicUrl))),
        retry: (postId) => run(Effect.map(Posts.retryPost(caller, Ids.unchecked("post", postId)), (r) => Views.retried(r, locale, publicUrl)))
      },
      webhooks: {
        create: (input) =>
          run(Effect.flatMap(decodeInput(Webhook.CreateWebhookRequest, "body")(input), (body) => Webhooks.createEndpoint(caller, body))),
        list: (query) =>
          run(Effect.flatMap(decodeInput(Webhook.ListWebhooksQuery, "query")(withLimit(query)), (q) => Webhooks.listEndpoints(caller, q))),
        delete: (endpointId) => run(Webhooks.deleteEndpoint(caller, Ids.unchecked("webhook", endpointId)))
      }
    }
  }

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
    approvals: {
      decide: (token, input) =>
        run(
          Effect.flatMap(decodeInput(Approval.DecisionRequest, "body")(input), (body) =>
            Effect.map(Approvals.decideApproval(token, body), (d) => Views.decision(d, locale, publicUrl))
          )
        )
    },
    events: { subscribe: (handler) => feed.subscribe(handler) },
    close: () => runtime.dispose()
  }
}

