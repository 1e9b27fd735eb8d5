/**
 * What a platform adapter did to make a target publishable, shown to the user as the target's
 * `details` (`GET /v1/posts/{id}`): today, the images sent as a JPEG rendition instead of the
 * original (`converted`). An adapter records them in its resume state under `details` (the
 * publisher stores that state with the target as it stores every step's); the API reads them from
 * there. A state without `details`, or with details of another shape, shows none.
 *
 * @since 0.4.0
 */

/** One media item the platform received as a rendition of another format. */
export interface Conversion {
  /** The media item, `med_…`. */
  readonly media_id: string
  /** Its own format (`image/png`). */
  readonly from: string
  /** The format the platform received (`image/jpeg`). */
  readonly to: string
}

/** A target's details. */
export interface TargetDetails {
  readonly converted: ReadonlyArray<Conversion>
}

const isConversion = (value: unknown): value is Conversion =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Conversion).media_id === "string" &&
  typeof (value as Conversion).from === "string" &&
  typeof (value as Conversion).to === "string"

/** The details an adapter left in a target's state, if any. */
export const fromState = (state: unknown): TargetDetails | undefined => {
  if (typeof state !== "object" || state === null) return undefined
  const details = (state as { readonly details?: unknown }).details
  if (typeof details !== "object" || details === null) return undefined
  const converted = (details as { readonly converted?: unknown }).converted
  if (!Array.isArray(converted) || converted.length === 0 || !converted.every(isConversion)) return undefined
  return { converted: converted.map(({ from, media_id, to }) => ({ media_id, from, to })) }
}

/**
 * `state` with `details` in it (a state that is not an object, such as `null` before anything
 * was created, is left as it is: there is nothing to show yet).
 */
export const withState = (state: unknown, details: TargetDetails | undefined): unknown =>
  details === undefined || details.converted.length === 0 || typeof state !== "object" || state === null || Array.isArray(state)
    ? state
    : { ...state, details }
