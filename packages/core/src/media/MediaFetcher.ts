/**
 * The `MediaFetcher` service: downloads the file of a URL import. The engine declares it; the
 * server implements it over Node's HTTP client with the SSRF rules of webhook deliveries (every
 * resolved address checked, each redirect checked again, size and time limits).
 *
 * @since 0.3.0
 */
import { Context, Data, type Effect, type Stream } from "effect"
import type { MediaFailure } from "../store/PostStore.ts"

/** A download that cannot succeed, with the reason the media item fails with. */
export class MediaFetchFailed extends Data.TaggedError("MediaFetchFailed")<{ readonly failure: MediaFailure }> {}

/** An answer being downloaded. */
export interface FetchedFile {
  /** The body, which fails with {@link MediaFetchFailed} past the size or time limit. */
  readonly body: Stream.Stream<Uint8Array, MediaFetchFailed>
  /** The last path segment of the final address, for a file name. */
  readonly name: string | undefined
}

/** Limits of one download. */
export interface FetchLimits {
  readonly maxBytes: number
  readonly timeoutMs: number
}

/** Downloads URL imports. */
export class MediaFetcher extends Context.Service<
  MediaFetcher,
  { readonly fetch: (url: string, limits: FetchLimits) => Effect.Effect<FetchedFile, MediaFetchFailed> }
>()("postwire/MediaFetcher") {}
