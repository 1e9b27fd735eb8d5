/**
 * What a test of a list expects of the items it created. Two items made in the same millisecond
 * have the same `created_at`, and their ids are not ordered by when they were made (the random part
 * breaks the tie), so a test that expects the order it created them in fails now and then.
 */

/**
 * The ids of `items` in the order a list gives them: newest first, by `created_at` and then by id,
 * both descending, as the API documents.
 *
 * @example
 * const created = [await register(a), await register(b), await register(c)]
 * expect(listed.map((item) => item.id)).toEqual(newestFirst(created))
 */
export const newestFirst = (items: ReadonlyArray<{ readonly id: string; readonly created_at: string }>): Array<string> =>
  [...items]
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((item) => item.id)
