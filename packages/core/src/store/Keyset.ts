/**
 * A keyset position in a list ordered newest first: the cursor every store's lists page with.
 *
 * @since 0.1.0
 */
/** A keyset position in a list ordered newest first: `(sortKey desc, id desc)`. */
export interface Keyset {
  readonly sortKey: number
  readonly id: string
}
