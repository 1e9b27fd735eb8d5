/**
 * Meta's container publishing, as Instagram and Threads both speak it (platforms.md): containers
 * created on the user's media edge, processing that advances per status check, the "not ready"
 * answer to an early publish, the rolling publishing limit (reported and enforced at publish),
 * the list of published media, permalinks, and the refresh of a still-valid long-lived token.
 */
import { Effect, type Scope } from "effect"
import { type FakeReply, type FakeRequest, type FakeServer, start } from "./FakeServer.ts"
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
  readonly containerId: string
  readonly caption: string
  readonly permalink: string
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
}

const routeOf = (dialect: ContainerDialect) => (request: FakeRequest): string => {
  if (request.path === "/refresh_access_token") return "refresh"
  const parts = segments(request, dialect.version)
  if (parts === undefined) return "unknown"
  const [node, edge] = parts
  if (edge === undefined) {
    if (request.method !== "GET") return "unknown"
    return (request.params.fields ?? "").includes("permalink") ? "permalink" : "container_status"
  }
  if (node !== dialect.userId) return "unknown"
  if (edge === dialect.limitEdge) return "limit"
  if (edge === dialect.publishEdge && request.method === "POST") return "publish"
  if (edge === dialect.mediaEdge) return request.method === "POST" ? "create" : "list"
  return "unknown"
}

/** Starts a container fake speaking `dialect`. */
export const make = (dialect: ContainerDialect): Effect.Effect<ContainerFake, never, Scope.Scope> =>
  // Each run of the effect is a fresh platform: no state leaks between tests.
  Effect.suspend(() => {
  let fake: ContainerFake
  let issued = 0
  let nextId = 0
  const newId = () => {
    nextId += 1
    return `1790000000${String(nextId).padStart(6, "0")}`
  }

  const statusOf = (container: FakeContainer): string => {
    if (container.mediaId !== null) return "PUBLISHED"
    if (container.polls <= fake.pollsBeforeFinished) return "IN_PROGRESS"
    return fake.containerOutcome
  }

  const used = () => fake.quotaUsedBefore + fake.media.length

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
            const child = fake.containers.find((c) => c.id === id)
            return child !== undefined && statusOf(child) === "FINISHED"
          })
          if (!ready) return graphError(400, 100, 2207028, { message: "Carousel children are not ready" })
        }
        fake.containers.push(container)
        return { status: 200, json: { id: container.id } }
      }
      case "container_status": {
        const container = fake.containers.find((c) => c.id === request.path.split("/").at(-1))
        if (container === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        container.polls += 1
        const status = statusOf(container)
        return {
          status: 200,
          json: {
            id: container.id,
            [dialect.statusField]: status,
            ...(status === "ERROR" ? { [dialect.errorField]: fake.containerErrorText } : {})
          }
        }
      }
      case "publish": {
        const container = fake.containers.find((c) => c.id === p.creation_id)
        if (container === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        if (container.mediaId !== null) {
          fake.duplicatePublishes += 1
          return graphError(400, 100, 2207008, { message: "The media has already been published" })
        }
        if (statusOf(container) !== "FINISHED") {
          return graphError(400, 9007, 2207027, { message: "Media ID is not available" })
        }
        if (used() >= dialect.quotaTotal) return graphError(400, 9, 2207042, { message: "Maximum posts reached" })
        const id = newId()
        container.mediaId = id
        fake.media.unshift({ id, containerId: container.id, caption: container.params[dialect.captionField] ?? "", permalink: dialect.permalink(id) })
        return { status: 200, json: { id } }
      }
      case "list":
        return {
          status: 200,
          json: { data: fake.media.map((m) => ({ id: m.id, [dialect.captionField]: m.caption, permalink: m.permalink })) }
        }
      default: {
        const media = fake.media.find((m) => m.id === request.path.split("/").at(-1))
        if (media === undefined) return graphError(400, 100, 33, { message: "Object does not exist" })
        return { status: 200, json: { id: media.id, permalink: media.permalink } }
      }
    }
  }

  return Effect.map(start({ route: routeOf(dialect), handle: (route, request) => handle(route, request) }), (server) => {
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
      duplicatePublishes: 0
    })
    return fake
  })
  })
