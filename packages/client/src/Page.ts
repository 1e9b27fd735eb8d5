/**
 * Cursor pagination for the Promise API: a page of items that also walks every later page.
 *
 * @since 0.1.0
 */
import type { ListPage } from "./Resources.ts"

/**
 * One page of a list. It is also an async iterable over every item from this page on,
 * following `cursor.next` until `has_more` is `false`.
 *
 * @example
 * ```ts
 * import { type Page, type Post, Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 *
 * // Page by page
 * let page: Page<Post> | null = await postwire.posts.list({ status: "failed", limit: 100 })
 * while (page !== null) {
 *   console.log(page.data.length, page.cursor.next)
 *   page = await page.nextPage()
 * }
 *
 * // Item by item, across pages
 * for await (const account of await postwire.accounts.list()) {
 *   console.log(account.handle)
 * }
 * ```
 *
 * @since 0.1.0
 */
export class Page<T> implements ListPage<T>, AsyncIterable<T> {
  /** The items of this page. */
  readonly data: ReadonlyArray<T>
  /** The cursor to the next page: `next` is `null` when `has_more` is `false`. */
  readonly cursor: ListPage<T>["cursor"]
  readonly #fetchNext: (cursor: string) => Promise<Page<T>>

  /**
   * A page holding `envelope`; `fetchNext` loads the page after it. Pages come from the
   * client's `list` methods: there is no need to build one.
   */
  constructor(envelope: ListPage<T>, fetchNext: (cursor: string) => Promise<Page<T>>) {
    this.data = envelope.data
    this.cursor = envelope.cursor
    this.#fetchNext = fetchNext
  }

  /** Whether a page follows this one. */
  get hasMore(): boolean {
    return this.cursor.has_more && this.cursor.next !== null
  }

  /** Loads the next page, with the same filters; `null` after the last page. */
  async nextPage(): Promise<Page<T> | null> {
    return this.hasMore && this.cursor.next !== null ? this.#fetchNext(this.cursor.next) : null
  }

  /** Every item from this page on, loading each next page when the previous one is used up. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page: Page<T> | null = this
    while (page !== null) {
      yield* page.data
      page = await page.nextPage()
    }
  }
}

/**
 * The answer of a `list` method: a promise of the first {@link Page} that is also an async
 * iterable over every item of every page, so both of these work:
 *
 * @example
 * ```ts
 * import { Postwire } from "@postwire/client"
 *
 * const postwire = new Postwire({ apiKey: process.env.POSTWIRE_API_KEY!, baseUrl: "http://localhost:8080" })
 *
 * const first = await postwire.posts.list({ status: "queued" })
 * console.log(first.data, first.cursor)
 *
 * for await (const post of postwire.posts.list({ status: "queued" })) {
 *   console.log(post.id, post.status)
 * }
 * ```
 *
 * @since 0.1.0
 */
export class PagePromise<T> extends Promise<Page<T>> implements AsyncIterable<T> {
  // `then`, `catch` and `finally` answer plain promises.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise
  }

  /** Wraps the promise of a first page. Made by the client's `list` methods. */
  constructor(firstPage: Promise<Page<T>>) {
    super((resolve, reject) => {
      firstPage.then(resolve, reject)
    })
  }

  /** Every item of every page, starting with the first page's. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this
  }
}
