/**
 * The list envelope shared by every list endpoint.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as ErrorDetail from "./ErrorDetail.ts"

/** `cursor` of a list page: `next` is `null` when `has_more` is false. */
export const Cursor = Schema.Struct({
  next: Schema.NullOr(Schema.String),
  has_more: Schema.Boolean
})

/** A page of items with its cursor. */
export const ListEnvelope = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    data: Schema.Array(item),
    cursor: Cursor
  })

/** `limit` in a list query: 1 to 100, default 25. */
export const PageLimit = Schema.NumberFromString.check(
  Schema.makeFilter(
    (n: number) => Number.isInteger(n) && n >= 1 && n <= 100,
    ErrorDetail.annotation(ErrorDetail.reason("integer_between", { min: 1, max: 100 }))
  )
)

/** Default page size. */
export const defaultPageSize = 25
