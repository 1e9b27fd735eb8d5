/**
 * The Promise shape of the Effect client, as a mapped type and one function: a method answering
 * an `Effect` answers a `Promise`, a page of a list a `PagePromise` (await one page, or
 * `for await` over every item), and the `listAll` streams are left out (`for await` does it).
 *
 * @internal
 */
import { Effect, type Stream } from "effect"
import type { PostwireClientError } from "../ClientError.ts"
import { Page, PagePromise } from "../Page.ts"
import type { ListPage } from "../Resources.ts"
import { methodKind } from "./derive.ts"

/** `T` with Promises instead of Effects, recursively. */
export type Promised<T> = {
  readonly [K in keyof T as T[K] extends (...args: never) => Stream.Stream<unknown, unknown, unknown> ? never : K]: T[K] extends (
    ...args: infer A
  ) => Effect.Effect<infer R, unknown, unknown>
    ? R extends ListPage<infer Item>
      ? (...args: A) => PagePromise<Item>
      : (...args: A) => Promise<R>
    : Promised<T[K]>
}

const run = <A>(effect: Effect.Effect<A, PostwireClientError>): Promise<A> => Effect.runPromise(effect)

const firstPage = <T>(
  list: (cursor: string | undefined) => Effect.Effect<ListPage<T>, PostwireClientError>
): PagePromise<T> => {
  const load = async (cursor: string | undefined): Promise<Page<T>> => new Page(await run(list(cursor)), (next) => load(next))
  return new PagePromise(load(undefined))
}

type AnyMethod = (...args: Array<unknown>) => Effect.Effect<never, PostwireClientError>

/** The Promise form of one method. */
const promisedMethod = (method: AnyMethod): ((...args: Array<unknown>) => unknown) => {
  const kind = methodKind(method)
  if (kind?.kind !== "page") return (...args) => run(method(...args))
  return (...args) => {
    const path = args.slice(0, kind.pathParams)
    const query = (args[kind.pathParams] ?? {}) as Record<string, unknown>
    return firstPage((cursor) => method(...path, cursor === undefined ? query : { ...query, cursor }))
  }
}

/** The Promise form of a service of the Effect client. */
export const promised = <T extends object>(service: T): Promised<T> => {
  const result: Record<string, unknown> = {}
  for (const [key, member] of Object.entries(service)) {
    if (methodKind(member)?.kind === "stream") continue
    result[key] = typeof member === "function" ? promisedMethod(member as AnyMethod) : promised(member as object)
  }
  return result as Promised<T>
}
