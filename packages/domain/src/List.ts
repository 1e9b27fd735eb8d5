/**
 * The list envelope shared by every list endpoint.
 *
 * @since 0.1.0
 */
import { Schema, SchemaTransformation } from "effect"
import * as ErrorDetail from "./ErrorDetail.ts"

/** `cursor` of a list page: `next` is `null` when `has_more` is false. */
export const Cursor = Schema.Struct({
  /** Opaque cursor of the next page: send it as `cursor` with the same filters, within 24 hours. `null` when `has_more` is false. */
  next: Schema.NullOr(Schema.String).annotate({ description: "Opaque cursor of the next page: send it as `cursor` with the same filters, within 24 hours. `null` when `has_more` is false." }),
  /** Whether another page follows. */
  has_more: Schema.Boolean.annotate({ description: "Whether another page follows." })
}).annotate({ description: "Where the next page starts." })

/** A page of items with its cursor. */
export const ListEnvelope = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    /** The items of this page, newest first. */
    data: Schema.Array(item).annotate({ description: "The items of this page, newest first." }),
    /** Where the next page starts. */
    cursor: Cursor
  }).annotate({ description: "A page of items and the cursor to the next one." })

/** `limit` in a list query: 1 to 100, default 25. */
export const PageLimit = Schema.String.annotate({ description: "Page size, an integer from 1 to 100; default 25." }).pipe(Schema.decodeTo(Schema.Number, SchemaTransformation.numberFromString)).check(
  Schema.makeFilter(
    (n: number) => Number.isInteger(n) && n >= 1 && n <= 100,
    ErrorDetail.annotation(ErrorDetail.reason("integer_between", { min: 1, max: 100 }))
  )
)

/** Default page size. */
export const defaultPageSize = 25
