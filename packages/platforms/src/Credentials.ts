/**
 * The platform credentials of an account: the JSON stored (sealed by the server) in
 * `account.credentials`. The engine treats it as an opaque string; the server unseals it before
 * handing the account to the plugins, and seals what a plugin returns as a `credentials` update
 * (tokens rotate).
 *
 * Each platform owns the shape of its credentials: its plugin declares it as
 * `PlatformPlugin.credentials` (an Effect Schema whose type is plain JSON), and its folder reads
 * and writes them through a {@link Codec} made from that schema. There is no table of platforms
 * here: {@link of} reads a plugin's own schema.
 *
 * Times are epoch milliseconds.
 *
 * @example
 * ```ts
 * import { Credentials, tiktok } from "@postwire/platforms"
 * import { Schema } from "effect"
 *
 * // A plugin's own shape, and its codec.
 * const BlogCredentials = Schema.Struct({ token: Schema.String })
 * const blogCredentials = Credentials.codec(BlogCredentials)
 * const stored = blogCredentials.encode({ token: "t-1" })
 *
 * // A built-in plugin's shape, read from the plugin.
 * const tiktokStored = Credentials.encode(tiktok, {
 *   access_token: "act.1",
 *   refresh_token: "rft.1",
 *   expires_at: Date.now() + 2 * 60 * 60 * 1000
 * })
 * ```
 *
 * @since 0.1.0
 */
import type { PlatformFailure } from "@postwire/core"
import { Effect, Schema } from "effect"
import { failure } from "./internal/Wire.ts"
import type { PlatformPlugin } from "./Plugin.ts"

/** A credentials schema: decoded without services; its type is the JSON stored. */
export type StoredSchema = Schema.Top & { readonly DecodingServices: never }

/** Reads and writes one platform's stored credentials. */
export interface Codec<S extends StoredSchema> {
  /** The shape of the credentials. */
  readonly schema: S
  /** Serializes credentials to the JSON string stored in `account.credentials`. */
  readonly encode: (credentials: S["Type"]) => string
  /**
   * Reads an account's credentials. Missing or unreadable credentials can only be fixed by
   * connecting the account again: `token_expired` (`credentials_missing`, `credentials_invalid`)
   * with `needsReconnect`.
   */
  readonly decode: (json: string | null) => Effect.Effect<S["Type"], PlatformFailure>
}

const invalid = () => failure("token_expired", "credentials_invalid", { needsReconnect: true })

/** The codec of a credentials schema (made once per schema; keep it beside the schema). */
export const codec = <S extends StoredSchema>(schema: S): Codec<S> => {
  const decodeUnknown = Schema.decodeUnknownEffect(schema as Schema.Top as Schema.Codec<S["Type"], unknown>)
  return {
    schema,
    encode: (credentials) => JSON.stringify(credentials),
    decode: (json) => {
      if (json === null) return Effect.fail(failure("token_expired", "credentials_missing", { needsReconnect: true }))
      let parsed: unknown
      try {
        parsed = JSON.parse(json)
      } catch {
        return Effect.fail(invalid())
      }
      return decodeUnknown(parsed).pipe(Effect.mapError(invalid))
    }
  }
}

/** Any JSON: the credentials of a plugin that declares no `credentials` schema. */
const anyJson = codec(Schema.Unknown)
const codecs = new WeakMap<StoredSchema, Codec<StoredSchema>>()

/** The credentials type a plugin declares (`unknown` when it declares none). */
// biome-ignore lint/suspicious/noExplicitAny: any settings types; only the credentials schema matters
export type Stored<P> = P extends PlatformPlugin<any, any, infer S> ? S["Type"] : never

/** The codec of a plugin's credentials, from its `credentials` schema (any JSON when it has none). */
// biome-ignore lint/suspicious/noExplicitAny: any settings types; only the credentials schema matters
export const of = <S extends StoredSchema>(plugin: PlatformPlugin<any, any, S>): Codec<S> => {
  const schema = plugin.credentials
  if (schema === undefined) return anyJson as unknown as Codec<S>
  let found = codecs.get(schema)
  if (found === undefined) {
    found = codec(schema as StoredSchema)
    codecs.set(schema, found)
  }
  return found as unknown as Codec<S>
}

/** Serializes credentials of `plugin`'s shape to the JSON stored in `account.credentials`. */
// biome-ignore lint/suspicious/noExplicitAny: any settings types; only the credentials schema matters
export const encode = <S extends StoredSchema>(plugin: PlatformPlugin<any, any, S>, credentials: S["Type"]): string =>
  of(plugin).encode(credentials)

/** Reads an account's credentials with `plugin`'s schema (see {@link Codec.decode}). */
export const decode = <S extends StoredSchema>(
  // biome-ignore lint/suspicious/noExplicitAny: any settings types; only the credentials schema matters
  plugin: PlatformPlugin<any, any, S>,
  json: string | null
): Effect.Effect<S["Type"], PlatformFailure> => of(plugin).decode(json)
