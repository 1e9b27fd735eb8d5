/**
 * Events for an embedding app: every event this process writes to the outbox (the same
 * `post.*` and `account.*` events that webhooks carry) is handed to in-process subscribers
 * once the write that carries it has succeeded.
 *
 * The feed decorates the stores' writes that carry events, so it needs no polling and no
 * second table. It is in-process and best effort: an event written by another instance on
 * the same PostgreSQL is not seen here, and a subscriber that throws does not get it again.
 * Durable, at-least-once delivery is what webhooks are for.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import { formatInstant, Ids, type Webhook } from "@postwire/domain"
import { CommentStore, type OutboxEvent, PublishingStore, Store } from "@postwire/core"

/** An event as a subscriber receives it: the body of a webhook delivery. */
export interface EngineEvent {
  readonly id: string
  readonly type: Webhook.WebhookEventType
  readonly created_at: string
  readonly livemode: boolean
  /** The workspace the event belongs to (webhook bodies leave it out: an endpoint belongs to one). */
  readonly workspace_id: string
  readonly data: Readonly<Record<string, unknown>>
}

/** Receives events; what it returns (or throws) does not affect the engine, and a returned promise is not awaited. */
export type EventHandler = (event: EngineEvent) => void | Promise<void>

/** The subscribers of this process. */
export class EventFeed extends Context.Service<
  EventFeed,
  {
    /** Adds a subscriber; the function returned removes it. */
    readonly subscribe: (handler: EventHandler) => () => void
    /** Hands stored events to every subscriber, in order. */
    readonly publish: (events: ReadonlyArray<OutboxEvent>) => Effect.Effect<void>
  }
>()("postwire/EventFeed") {
  /** A feed with no subscribers yet; a subscriber's failure is logged as a warning, never raised. */
  static readonly layer: Layer.Layer<EventFeed> = Layer.sync(EventFeed)(() => {
    const handlers = new Set<EventHandler>()
    return {
      subscribe: (handler) => {
        handlers.add(handler)
        return () => {
          handlers.delete(handler)
        }
      },
      // Subscribers are called in the order events were written, and never awaited: a slow or
      // failing subscriber does not hold up the write that caused the event.
      publish: (events) =>
        Effect.suspend(() => {
          const failures: Array<unknown> = []
          for (const event of events) {
            for (const handler of [...handlers]) {
              try {
                const result = handler(toEngineEvent(event))
                if (result instanceof Promise) result.catch((error: unknown) => Effect.runFork(subscriberFailed(error)))
              } catch (error) {
                failures.push(error)
              }
            }
          }
          return Effect.forEach(failures, subscriberFailed, { discard: true })
        })
    }
  })
}

const subscriberFailed = (error: unknown) => Effect.logWarning("An event subscriber failed", error)

const toEngineEvent = (event: OutboxEvent): EngineEvent => ({
  id: event.id,
  type: event.type as Webhook.WebhookEventType,
  created_at: formatInstant(event.createdAt),
  livemode: event.livemode,
  workspace_id: event.workspaceId,
  data: event.data
})

/**
 * The stores, with every write that carries events handing them to the feed once it has
 * succeeded. Provide it over the real stores.
 */
export const layerObservedStores: Layer.Layer<Store | PublishingStore, never, Store | PublishingStore | EventFeed> =
  Layer.effectContext(
    Effect.gen(function* () {
      const feed = yield* EventFeed
      const store = yield* Store
      const publishing = yield* PublishingStore
      const after = <A, E, R>(write: Effect.Effect<A, E, R>, events: (result: A) => ReadonlyArray<OutboxEvent>) =>
        Effect.tap(write, (result) => feed.publish(events(result)))
      const accountEvents = (change: { readonly status?: { readonly events: ReadonlyArray<OutboxEvent> } | undefined } | undefined) =>
        change?.status?.events ?? []
      return Context.make(Store, {
        ...store,
        updateAccountStatus: (workspaceId, id, status, events) =>
          after(store.updateAccountStatus(workspaceId, id, status, events), () => events),
        insertPost: (post, events) => after(store.insertPost(post, events), () => events),
        insertPostWithinQuota: (post, events, caps) =>
          after(store.insertPostWithinQuota(post, events, caps), (full) => (Option.isNone(full) ? events : [])),
        savePost: (post, events) => after(store.savePost(post, events), () => events)
      }).pipe(
        Context.add(PublishingStore, {
          ...publishing,
          startSteps: (request) =>
            after(publishing.startSteps(request), (steps) =>
              steps.flatMap((step) => (Option.isSome(step) ? step.value.events : []))
            ),
          saveProgress: (key, owner, progress) =>
            after(publishing.saveProgress(key, owner, progress), (saved) => (saved ? accountEvents(progress.account) : [])),
          completeTarget: (key, owner, completion) =>
            after(publishing.completeTarget(key, owner, completion), (completed) =>
              completed ? [...completion.events, ...accountEvents(completion.account)] : []
            )
        })
      )
    })
  )

/**
 * The comment store, with every comment it inserts handing its `comment.created` to the feed once
 * the write has succeeded. Provide it over the real comment store.
 */
export const layerObservedCommentStore: Layer.Layer<CommentStore, never, CommentStore | EventFeed> = Layer.effect(CommentStore)(
  Effect.gen(function* () {
    const feed = yield* EventFeed
    const comments = yield* CommentStore
    return {
      ...comments,
      storeComments: (batch) =>
        Effect.tap(comments.storeComments(batch), (stored) => {
          const eventIds = new Map(batch.comments.map((c) => [c.record.id, c.eventId]))
          return feed.publish(stored.inserted.map((comment) => batch.event(comment, eventIds.get(comment.id) ?? Ids.unchecked("event", ""))))
        })
    }
  })
)
