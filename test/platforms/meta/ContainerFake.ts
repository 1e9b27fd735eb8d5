/**
 * Meta's container publishing, as Instagram and Threads both speak it (platforms.md): containers
 * created on the user's media edge, processing that advances per status check, the "not ready"
 * answer to an early publish (each platform's own, see {@link ContainerDialect.notReady}), the rolling publishing limit (reported and enforced at publish),
 * the list of published media, permalinks, and the refresh of a still-valid long-lived token.
 *
 * As the real platforms behave: a container's GET answers only `id` and its status (also once
 * PUBLISHED: nothing names the media it became); the media edge lists newest first, 25 a page by
 * default (`limit` up to 100), with only the `fields` asked for, `since`/`until` in Unix seconds,
 * and `paging.cursors.before/after` plus `paging.next` while more remain; timestamps read
 * `2026-11-25T15:50:00+0000`. Instagram stories are listed on `stories`, not on `media`.
 *
 * `chaos` makes it an unreliable platform: a share of calls answer 500 (nothing done), and a share
 * of publishes are done and their answer lost.
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "../fakes/FakeServer.ts"
import { expiredToken, graphError, segments, tokenOf } from "./GraphFake.ts"

/** What differs between the Instagram and Threads fakes. */
export interface ContainerDialect {
  readonly version: string
  readonly userId: string
  readonly mediaEdge: string
  readonly publishEdge: string
  readonly limitEdge: string
  /** Field names of a container's status and its error text. */
  readonly statusField: string
  readonly errorField: string
  /** Field name of the caption on a container and on published media. */
  readonly captionField: string
  readonly refreshGrant: string
  readonly quotaTotal: number
  readonly permalink: (mediaId: string) => string
  /** The answer to a publish of a container still IN_PROGRESS. */
  readonly notReady: FakeReply
  /**
   * The error text a container ends its processing with because of what it holds (a video too
   * long), if any: it then reads ERROR with that text, whatever `containerOutcome` says.
   */
  readonly processingError?: ((container: FakeContainer) => string | undefined) | undefined
}

/** A container the fake holds. */
export interface FakeContainer {
  readonly id: string
  readonly params: Readonly<Record<string, string>>
  polls: number
  mediaId: string | null
}

/** A published media. */
export interface FakeMedia {
  readonly id: string
  /** The container it was published from; `null` for media the account published elsewhere (the app). */
  readonly containerId: string | null
  readonly caption: string
  readonly permalink: string
  /** When it was published, epoch milliseconds (listed to the second). */
  readonly publishedAt: number
  /** Instagram stories are listed on their own edge. */
  readonly story: boolean
}

/** Random faults over every Graph call. */
export interface Chaos {
  /** Share of calls answered 500 without doing anything. */
  readonly errorRate: number
  /** Share of publishes done whose answer is then lost (the connection closes). */
  readonly lostPublishRate: number
  readonly random: () => number
}

/** The fake and the knobs a test turns. */
export interface ContainerFake extends FakeServer {
  readonly dialect: ContainerDialect
  /** The valid access token right now. */
  accessToken: string
  /** Status checks a container stays IN_PROGRESS. */
  pollsBeforeFinished: number
  /** How processing ends: FINISHED, or ERROR (with `containerErrorText`), or EXPIRED. */
  containerOutcome: "FINISHED" | "ERROR" | "EXPIRED"
  containerErrorText: string
  /** Posts already made in the rolling window before the test. */
  quotaUsedBefore: number
  readonly containers: Array<FakeContainer>
  readonly media: Array<FakeMedia>
  /** Publish calls made for a container that was already published. */
  duplicatePublishes: number
  /** Random faults, when set. */
  chaos: Chaos | undefined
  /** Publishes `count` media on the account outside Postwire (the app), at `at` (default now). */
  readonly publishElsewhere: (count: number, caption?: (i: number) => string, at?: number) => void
  /** Runs after each publish the fake did (before answering), e.g. to publish others meanwhile. */
  afterPublish: ((media: FakeMedia) => void) | undefined
}

/**
 * More routes a platform's fake adds (comments): asked first to name a request's route, and to
 * answer it once the access token was checked; `onPublish` may take a published container for
 * itself (a Threads reply), so that it is not listed as the account's media.
 */
export interface ContainerExtension {
  readonly route: (request: FakeRequest, parts: ReadonlyArray<string>) => string | undefined
  readonly handle: (route: string, request: FakeRequest) => FakeReply | undefined
  readonly onPublish?: ((container: FakeContainer, id: string, publishedAt: number) => boolean) | undefined
}

/**
 * Finds an item of one of the fake's lists by id without scanning the list (a fleet run holds
 * thousands): each item's place is noted when the fake adds it, counted from the end the list
 * grows at, and checked before use. A list a test edited (a splice, a sort) makes the check fail,
 * and the lookup falls back to a scan, so the answer is always the one a scan gives.
 */
const byId = <T extends { readonly id: string }>(list: () => Array<T>, growsAt: "end" | "start") => {
  const places = new Map<string, number>()
  const at = (items: Array<T>, place: number) => (growsAt === "end" ? place : items.length - 1 - place)
  return {
    /** Notes the place of an item just added at the growing end (either way: the last from the other end). */
    added: (item: T) => {
      if (!places.has(item.id)) places.set(item.id, list().length - 1)
    },
    find: (id: string | undefined): T | undefined => {
      if (id === undefined) return undefined
      const items = list()
      const place = places.get(id)
      if (place !== undefined) {
        const item = items[at(items, place)]
        if (item?.id === id) return item
      }
      const index = items.findIndex((item) => item.id === id)
      if (index < 0) return undefined
      places.set(id, growsAt === "end" ? index : items.length - 1 - index)
      return items[index]
    }
  }
}

const routeOf = (dialect: ContainerDialect, extension: ContainerExtension | undefined) => (request: FakeRequest): string => {
  if (request.path === "/refresh_access_token") return "refresh"
  const parts = segments(request, dialect.version)
  if (parts === undefined) return "unknown"
  const extended = extension?.route(request, parts)
  if (extended !== undefined) return extended
  const [node, edge] = parts
  if (edge === undefined) {
    if (request.method !== "GET") return "unknown"
    return (request.params.fields ?? "").includes("permalink") ? "permalink" : "container_status"
  }
  if (node !== dialect.userId) return "unknown"
  if (edge === dialect.limitEdge) return "limit"
  if (edge === dialect.publishEdge && request.method === "POST") return "publish"
  if (edge === dialect.mediaEdge) return request.method === "POST" ? "create" : "list"
  if (edge === "stories" && dialect.mediaEdge === "media" && request.method === "GET") return "stories"
  return "unknown"
}

/** Starts a container fake speaking `dialect`. */
export const make = (
  dialect: ContainerDialect,
  extension?: () => ContainerExtension
): Effect.Effect<ContainerFake, never, Scope.Scope> =>
  // Each run of the effect is a fresh platform: no state leaks between tests.
  Effect.suspend(() => {
  let fake: ContainerFake
  const extra = extension?.()
  let issued = 0
  let nextId = 0
  const newId = () => {
    nextId += 1
    return `1790000000${String(nextId).padStart(6, "0")}`
  }

  const statusOf = (container: FakeContainer): string => {
    if (container.mediaId !== null) return "PUBLISHED"
    if (container.polls <= fake.pollsBeforeFinished) return "IN_PROGRESS"
    if (dialect.processingError?.(container) !== undefined) return "ERROR"
    return fake.containerOutcome
  }

  const containers = byId(() => fake.containers, "end")
  const media = byId(() => fake.media, "start")

  const used = () => fake.quotaUsedBefore + fake.media.length

  /** Meta's timestamp format: to the second, offset without a colon. */
  const timestamp = (millis: number) => `${new Date(millis).toISOString().slice(0, 19)}+0000`

  /** A page of the account's media, newest first, as the Graph API pages an edge. */
  const listMedia = (request: FakeRequest, stories: boolean): FakeReply => {
    const p = request.params
    const limit = Math.min(Math.max(Number(p.limit ?? 25) || 25, 1), 100)
    const since = p.since === undefined ? undefined : Number(p.since) * 1000
    const until = p.until === undefined ? undefined : Number(p.until) * 1000
    // Both are what Meta's time bounds compare: whole seconds.
    const listed = fake.media.filter(
      (m) =>
        m.story === stories &&
        (since === undefined || Math.floor(m.publishedAt / 1000) * 1000 >= since) &&
        (until === undefined || Math.floor(m.publishedAt / 1000) * 1000 <= until)
    )
    const decode = (cursor: string | undefined) =>
      cursor === undefined ? undefined : Buffer.from(cursor, "base64url").toString("utf8")
    const afterId = decode(p.after)
    const beforeId = decode(p.before)
    let from = 0
    if (afterId !== undefined) from = listed.findIndex((m) => m.id === afterId) + 1
    else if (beforeId !== undefined) from = Math.max(0, listed.findIndex((m) => m.id === beforeId) - limit)
    const page = listed.slice(from, from + limit)
    const fields = new Set((p.fields ?? "id").split(",").concat("id"))
    const cursor = (id: string) => Buffer.from(id, "utf8").toString("base64url")
    const more = from + limit < listed.length
    const link = (key: string, id: string) => {
      const url = new URL(request.path, fake.origin)
      for (const [k, v] of Object.entries(p)) if (k !== "after" && k !== "before") url.searchParams.set(k, v)
      url.searchParams.set(key, cursor(id))
      return url.toString()
    }
    const item = (m: FakeMedia) => {
      const all: Record<string, string> = {
        id: m.id,
        [dialect.captionField]: m.caption,
        permalink: m.permalink,
        timestamp: timestamp(m.publishedAt)
      }
      if (m.story) delete all[dialect.captionField]
      return Object.fromEntries(Object.entries(all).filter(([k]) => fields.has(k)))
    }
    return {
      status: 200,
      json: {
        data: page.map(item),
        ...(page.length === 0
          ? {}
          : {
              paging: {
                cursors: { before: cursor(page[0]!.id), after: cursor(page.at(-1)!.id) },
                ...(more ? { next: link("after", page.at(-1)!.id) } : {}),
                ...(from > 0 ? { previous: link("before", page[0]!.id) } : {})
              }
            })
      }
    }
  }

  const handle = (route: string, request: FakeRequest): FakeReply => {
    const p = request.params
    if (route === "unknown") return graphError(400, 100, 33, { message: "Unsupported request" })
    if (route === "refresh") {
      // Meta refreshes only a long-lived token that is still valid.
      if (p.grant_type !== dialect.refreshGrant || p.access_token !== fake.accessToken) return expiredToken
      issued += 1
      fake.accessToken = `${fake.accessToken.split(".")[0]}.refreshed-${issued}`
      return { status: 200, json: { access_token: fake.accessToken, token_type: "bearer", expires_in: 5_184_000 } }
    }
    if (tokenOf(request) !== fake.accessToken) return expiredToken
    const extended = extra?.handle(route, request)
    if (extended !== undefined) return extended
    switch (route) {
      case "limit":
        return {
          status: 200,
          json: { data: [{ quota_usage: used(), config: { quota_total: dialect.quotaTotal, quota_duration: 86400 } }] }
        }
      case "create": {
        const container: FakeContainer = { id: newId(), params: { ...p }, polls: 0, mediaId: null }
        if (p.media_type === "CAROUSEL") {
          const children = (p.children ?? "").split(",")
          const ready = children.every((id) => {
            const child = containers.find(id)
            return child !== undefined && statusOf(child) === "FINISHED"
          })
          if (!ready) return graphError(400, 100, 2207028, { message: "Carousel children are not ready" })
        }
        fake.containers.push(container)
        containers.added(container)
        return { status: 200, json: { id: container.id } }
      }
      case "container_status": {
        const container = containers.find(request.path.split("/").at(-1))
        if (container === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        container.polls += 1
        const status = statusOf(container)
        return {
          status: 200,
          json: {
            id: container.id,
            [dialect.statusField]: status,
            ...(status === "ERROR" ? { [dialect.errorField]: dialect.processingError?.(container) ?? fake.containerErrorText } : {})
          }
        }
      }
      case "publish": {
        const container = containers.find(p.creation_id)
        if (container === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        if (container.mediaId !== null) {
          fake.duplicatePublishes += 1
          return graphError(400, 100, 2207008, { message: "The media has already been published" })
        }
        if (statusOf(container) !== "FINISHED") return dialect.notReady
        if (used() >= dialect.quotaTotal) return graphError(400, 9, 2207042, { message: "Maximum posts reached" })
        const id = newId()
        container.mediaId = id
        if (extra?.onPublish?.(container, id, Date.now()) === true) return { status: 200, json: { id } }
        fake.media.unshift({
          id,
          containerId: container.id,
          caption: container.params[dialect.captionField] ?? "",
          permalink: dialect.permalink(id),
          publishedAt: Date.now(),
          story: container.params.media_type === "STORIES"
        })
        media.added(fake.media[0]!)
        fake.afterPublish?.(fake.media[0]!)
        return { status: 200, json: { id } }
      }
      case "list":
      case "stories":
        return listMedia(request, route === "stories")
      default: {
        const item = media.find(request.path.split("/").at(-1))
        if (item === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        return { status: 200, json: { id: item.id, permalink: item.permalink } }
      }
    }
  }

  /** The real answer, or a fault `chaos` picks for it. */
  const unreliable = (route: string, request: FakeRequest): FakeReply => {
    const chaos = fake.chaos
    if (chaos === undefined || route === "unknown" || route === "refresh") return handle(route, request)
    if (chaos.random() < chaos.errorRate) {
      return graphError(500, 1, undefined, { message: "An unknown error has occurred.", is_transient: true })
    }
    const reply = handle(route, request)
    if (route === "publish" && "json" in reply && reply.status === 200 && chaos.random() < chaos.lostPublishRate) {
      return { lose: true }
    }
    return reply
  }

  const publishElsewhere = (
    count: number,
    caption: (i: number) => string = (i) => `Posted from the app #${i}`,
    at: number = Date.now()
  ) => {
    for (let i = 0; i < count; i++) {
      const id = newId()
      fake.media.unshift({ id, containerId: null, caption: caption(i), permalink: dialect.permalink(id), publishedAt: at, story: false })
      media.added(fake.media[0]!)
    }
    // Newest first, whatever order they were made in.
    fake.media.sort((a, b) => b.publishedAt - a.publishedAt)
  }

  return Effect.map(start({ route: routeOf(dialect, extra), handle: (route, request) => unreliable(route, request) }), (server) => {
    fake = Object.assign(server, {
      url: `${server.origin}/${dialect.version}`,
      dialect,
      accessToken: "IGQ.initial",
      pollsBeforeFinished: 1,
      containerOutcome: "FINISHED" as const,
      containerErrorText: "ERROR",
      quotaUsedBefore: 0,
      containers: [],
      media: [],
      duplicatePublishes: 0,
      chaos: undefined,
      publishElsewhere,
      afterPublish: undefined
    })
    return fake
  })
  })
