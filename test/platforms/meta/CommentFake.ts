/**
 * What the Meta fakes share for comments: the comments a platform holds, Graph's cursor paging
 * (`paging.cursors.before/after`, `paging.next` while more remain, `paging.previous` after the
 * first page), the `fields` parameter with nested selections (`replies{id,text}`), and Meta's
 * timestamps. Each platform's fake turns a comment into its own wire format.
 */
import type { FakeRequest } from "../fakes/FakeServer.ts"

/** A comment (an Instagram comment, a Page comment, a Threads reply) held by a fake. */
export interface FakeComment {
  readonly id: string
  /** The published item it is under (media id, Page post id, Threads root post id). */
  readonly rootId: string
  /** The comment it answers; `null` when it is directly under the item. */
  readonly parentId: string | null
  readonly authorId: string
  /** Instagram and Threads username; a Facebook person's name. */
  readonly username: string
  readonly text: string
  /** Epoch milliseconds (listed to the second). */
  readonly createdAt: number
  hidden: boolean
  likeCount: number
  /** Written by the account the fake serves. */
  readonly byOwner: boolean
}

/** What a person writes under an item (the fake fills in the rest). */
export interface NewComment {
  readonly on: string
  readonly text: string
  readonly username?: string
  readonly authorId?: string
  readonly parentId?: string | null
  /** Default: now. */
  readonly at?: number
  readonly likeCount?: number
  readonly byOwner?: boolean
}

/** The comments of a fake and the ids it gives them. */
export class CommentStore {
  readonly comments: Array<FakeComment> = []
  private next = 0

  constructor(private readonly prefix: string) {}

  newId(): string {
    this.next += 1
    return `${this.prefix}${String(this.next).padStart(6, "0")}`
  }

  add(input: NewComment & { readonly id?: string }): FakeComment {
    const id = input.id ?? this.newId()
    const comment: FakeComment = {
      id,
      rootId: input.on,
      parentId: input.parentId ?? null,
      authorId: input.authorId ?? `9000${String(this.next).padStart(8, "0")}`,
      username: input.username ?? `fan_${this.next}`,
      text: input.text,
      createdAt: input.at ?? Date.now(),
      hidden: false,
      likeCount: input.likeCount ?? 0,
      byOwner: input.byOwner ?? false
    }
    this.comments.push(comment)
    return comment
  }

  find(id: string | undefined): FakeComment | undefined {
    return id === undefined ? undefined : this.comments.find((c) => c.id === id)
  }

  /** Removes a comment and everything under it. */
  remove(id: string): void {
    for (const child of this.comments.filter((c) => c.parentId === id)) this.remove(child.id)
    const at = this.comments.findIndex((c) => c.id === id)
    if (at >= 0) this.comments.splice(at, 1)
  }

  /** Oldest first (then by id: Meta's order among comments of the same second). */
  chronological(filter: (c: FakeComment) => boolean): Array<FakeComment> {
    return this.comments.filter(filter).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
  }

  /** The comments under `rootId` at any depth. */
  under(rootId: string): Array<FakeComment> {
    return this.comments.filter((c) => c.rootId === rootId)
  }
}

/** Meta's timestamp format: to the second, offset without a colon. */
export const metaTime = (millis: number): string => `${new Date(millis).toISOString().slice(0, 19)}+0000`

/** Graph's opaque cursors (here: the item's id, base64url). */
export const cursorOf = (id: string): string => Buffer.from(`c:${id}`, "utf8").toString("base64url")

/** The id a cursor names; `null` for a cursor the fake never gave. */
export const decodeCursor = (cursor: string): string | null => {
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  return text.startsWith("c:") ? text.slice(2) : null
}

/**
 * The top-level names of a `fields` parameter, each with its nested selection:
 * `id,replies{id,text},from` → id, replies (`id,text`), from.
 */
export const parseFields = (fields: string | undefined): Map<string, string | undefined> => {
  const out = new Map<string, string | undefined>()
  if (fields === undefined) return out
  let depth = 0
  let name = ""
  let nested = ""
  const flush = () => {
    const key = name.trim().replace(/\..*$/, "")
    if (key !== "") out.set(key, depth === 0 && nested !== "" ? nested : undefined)
    name = ""
    nested = ""
  }
  for (const ch of fields) {
    if (ch === "{") {
      if (depth > 0) nested += ch
      depth += 1
    } else if (ch === "}") {
      depth -= 1
      if (depth > 0) nested += ch
    } else if (ch === "," && depth === 0) {
      flush()
    } else if (depth > 0) {
      nested += ch
    } else {
      name += ch
    }
  }
  flush()
  return out
}

/** Keeps the asked fields of an item (`id` always). */
export const pick = (all: Record<string, unknown>, fields: Map<string, string | undefined>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(all).filter(([k, v]) => v !== undefined && (k === "id" || fields.has(k))))

/** The outcome of paging a list: the page, and the `paging` object Graph answers with. */
export interface Paged<T> {
  readonly page: ReadonlyArray<T>
  readonly paging: Record<string, unknown> | undefined
}

/**
 * One page of `list` as Graph pages it: `limit` (default 25, at most 100), `after` (items after
 * the one the cursor names) or `before` (the page ending before it), `paging.next` and
 * `paging.previous` as full addresses carrying the request's other parameters.
 * A cursor that names no item is an error (`undefined`).
 */
export const paginate = <T extends { readonly id: string }>(
  list: ReadonlyArray<T>,
  request: FakeRequest,
  origin: string,
  defaultLimit = 25
): Paged<T> | undefined => {
  const p = request.params
  const limit = Math.min(Math.max(Number(p.limit ?? defaultLimit) || defaultLimit, 1), 100)
  let from = 0
  let end = list.length
  if (p.after !== undefined) {
    const id = decodeCursor(p.after)
    if (id === null) return undefined
    const at = list.findIndex((item) => item.id === id)
    // An item deleted since: Meta's cursor still points at its place; here, the end.
    from = at < 0 ? list.length : at + 1
  } else if (p.before !== undefined) {
    const id = decodeCursor(p.before)
    if (id === null) return undefined
    const at = Math.max(0, list.findIndex((item) => item.id === id))
    from = Math.max(0, at - limit)
    end = at
  }
  const page = list.slice(from, Math.min(end, from + limit))
  if (page.length === 0) return { page, paging: undefined }
  const link = (key: "after" | "before", id: string) => {
    const url = new URL(request.path, origin)
    for (const [k, v] of Object.entries(p)) if (k !== "after" && k !== "before") url.searchParams.set(k, v)
    url.searchParams.set(key, cursorOf(id))
    return url.toString()
  }
  return {
    page,
    paging: {
      cursors: { before: cursorOf(page[0]!.id), after: cursorOf(page.at(-1)!.id) },
      ...(from + page.length < list.length ? { next: link("after", page.at(-1)!.id) } : {}),
      ...(from > 0 ? { previous: link("before", page[0]!.id) } : {})
    }
  }
}
