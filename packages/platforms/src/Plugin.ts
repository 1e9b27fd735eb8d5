/**
 * A platform as one value: what Postwire needs to publish to it, connect accounts of it, read
 * their comments and keep their tokens alive. The four built-in platforms are plugins like any
 * other (each in its folder: `tiktok/`, `instagram/`, `facebook/`, `threads/`); the registry
 * (`Registry`) holds them, and a deployment adds its own.
 *
 * ## The exactly-once contract
 *
 * `publish.make(...).publish(input)` is called step by step with the state saved after the
 * previous step (`input.state`, `null` the first time). Before a call that may publish and whose
 * answer may be lost, the publisher calls `input.checkpoint(state)`: from then on the engine never
 * calls `publish` again with a state that would send it twice; it calls it with that state, and
 * the publisher must first look for the item that call may have made (by its id, or by listing
 * the account's recent items and matching the caption) and answer `Published` when it finds it.
 * Only a failure with `notPublished: true` (the platform said it did not publish) or
 * `gaveUp: true` (the search ran out of its bound) ends such a target as failed.
 *
 * @example
 * ```ts
 * import type { PlatformPlugin } from "@postwire/platforms"
 * import { Effect } from "effect"
 *
 * export const blog: PlatformPlugin = {
 *   name: "blog",
 *   displayName: "My blog",
 *   rules: {
 *     displayName: "My blog", captionMax: 10_000, dailyQuota: 50, mediaMin: 0, mediaMax: 4,
 *     comments: { read: false, reply: false, hide: false, delete: false, push: false },
 *     checkMedia: () => undefined
 *   },
 *   publish: {
 *     defaults: {},
 *     make: () => ({
 *       publish: (input) => Effect.succeed({ _tag: "Published", platformPostId: "1", permalink: null, state: null })
 *     })
 *   }
 * }
 * ```
 *
 * @since 0.4.0
 */
import type {
  AccountRecord,
  AdmitInput,
  AnalyticsCapabilities,
  AnalyticsPlatform,
  ChooserWords,
  ConnectFailure,
  ConnectFormField,
  CreatorInfo,
  CredentialsUpdate,
  PermalinkInput,
  PermalinkLookup,
  Counters,
  PlatformFailure,
  PublishInput,
  PublishStep,
  RenewalPolicy
} from "@postwire/core"
import type { LocalizedText, Post, TargetRules } from "@postwire/domain"
import type { Effect, Redacted, Schema } from "effect"
import type { CommentAdapter } from "./comments/CommentAdapter.ts"
import type * as CommentAdapterModule from "./comments/CommentAdapter.ts"
import type { PlatformConnect } from "./internal/ConnectWire.ts"
import type { Wire } from "./internal/Wire.ts"

/** What may come back with any step: tokens that rotated during it, to store. */
type WithCredentials<A> = A & { readonly credentials?: CredentialsUpdate | undefined }

/** A platform's publishing side: the `PlatformClient` operations for its accounts. */
export interface PlatformPublisher {
  /** Runs the next step of publishing one target (see the exactly-once contract above). */
  readonly publish: (input: PublishInput) => Effect.Effect<WithCredentials<PublishStep>, PlatformFailure>
  /** Asks for the public address of a target published without one (`permalinkPending`). */
  readonly permalink?: ((input: PermalinkInput) => Effect.Effect<WithCredentials<PermalinkLookup>, PlatformFailure>) | undefined
  /** The creator's posting options, for platforms that have them (`capabilities.creatorInfo`). */
  readonly creatorInfo?: ((account: AccountRecord) => Effect.Effect<WithCredentials<CreatorInfo>, PlatformFailure>) | undefined
  /**
   * Refuses a target at validate and create, before anything is stored, without calling the
   * platform (a shared budget that is spent): the failure, or `undefined` to let it go on. Not
   * asked for sandbox accounts.
   */
  readonly admit?: ((input: AdmitInput) => Effect.Effect<PlatformFailure | undefined>) | undefined
}

/**
 * What the engine gives a plugin beside its settings and the `Wire`.
 *
 * `counters`: the plugin's named counters in the engine's database (`PlatformCounters` in
 * `@postwire/core`): `add({ key, window, units, limit })` adds atomically within the limit and
 * answers `Allowed` or `Refused` with the window's end, shared by every instance on the database
 * and kept across restarts (in the process when the engine has no database). Keys are the
 * plugin's own; another plugin never sees them.
 */
export interface PluginServices {
  readonly counters: Counters
}

/** A platform's connect side: OAuth, token refresh, revoke; optionally the creator's options. */
export interface PlatformConnector extends PlatformConnect {
  readonly creatorInfo?: ((credentials: string) => Effect.Effect<CreatorInfo, ConnectFailure>) | undefined
}

/**
 * Settings of one side of a plugin: the defaults, completed with what the deployment gives
 * (`PlatformRouter.Options[name]`, `ConnectRouter.Options[name]`); the keys in `secrets` are
 * redacted when given as plain strings.
 */
export interface SettingsPart<S> {
  readonly defaults: S
  readonly secrets?: ReadonlyArray<keyof S & string> | undefined
}

/** Publishing: settings and the publisher built from them over the shared HTTP `Wire`. */
export interface PublishPart<S> extends SettingsPart<S> {
  readonly make: (settings: S, wire: Wire, services: PluginServices) => PlatformPublisher
  /** The comment operations, built from the same settings; none: the platform has no comments API. */
  readonly comments?:
    | ((settings: S, wire: Wire, config: CommentAdapterModule.Config, services: PluginServices) => CommentAdapter)
    | undefined
  /**
   * Reading metrics of published items and accounts, built from the same settings; none: the
   * platform has no analytics (the plugin's `analytics` capabilities must then be absent too).
   */
  readonly analytics?: ((settings: S, wire: Wire, services: PluginServices) => AnalyticsAdapter) | undefined
}

/** A platform's analytics operations (see `AnalyticsPlatform` in `@postwire/core`). */
export type AnalyticsAdapter = Pick<AnalyticsPlatform["Service"], "collectPosts" | "collectAccount">

/** Connecting accounts: settings and the connector built from them. */
export interface ConnectPart<S> extends SettingsPart<S> {
  readonly make: (settings: S, wire: Wire) => PlatformConnector
  /**
   * The fields the hosted connect page asks for before the connect starts (a Bluesky handle and
   * app password, a Mastodon server's address); their values reach the connector's `begin` as
   * `fields`, checked (required, length, an http(s) address for `url`), never logged nor stored
   * (only `begin`'s `memo` is kept, sealed). Not asked on sandbox connects. Names: 1 to 32 of
   * `a-z 0-9 _`, starting with a letter.
   */
  readonly form?: ReadonlyArray<ConnectFormField> | undefined
  /**
   * The words of the account picker in English and Indonesian, for a platform whose consent may
   * connect several accounts (`capabilities.choosesAccounts`: Facebook Pages). Absent: generic
   * words naming the platform ("Choose the Notes accounts to connect").
   */
  readonly chooser?: { readonly en: ChooserWords; readonly id: ChooserWords } | undefined
  /**
   * The app secret that signs the platform's deauthorization callbacks (Meta's
   * `signed_request`), with its setting name; absent: the platform sends none.
   */
  readonly deauthorization?: ((settings: S) => { readonly secret: Redacted.Redacted<string>; readonly name: string }) | undefined
  /**
   * Public JSON documents the connect side serves at `GET /connect/documents/{platform}/{name}`
   * (atproto OAuth's client metadata document, which the account's server fetches from the client
   * id address): by name, the document built from the settings and the server's public base
   * address (no trailing slash); `undefined`: not served with these settings (404). Names: 1 to
   * 64 of `a-z 0-9 - _ .`.
   */
  readonly documents?: Readonly<Record<string, (settings: S, publicUrl: string) => unknown>> | undefined
}

/**
 * Reads a server's environment for a plugin (`postwire serve`): each reader answers `undefined`
 * when the variable is unset or empty, and stops the start with a one-line error naming the
 * variable when its value is wrong.
 */
export interface EnvReader {
  /** Text, trimmed. */
  readonly text: (name: string) => string | undefined
  /** A secret: the first of `names` that is set, redacted. */
  readonly secret: (...names: ReadonlyArray<string>) => Redacted.Redacted<string> | undefined
  /** An http(s) address without its trailing slash. */
  readonly url: (name: string) => string | undefined
  /** An http(s) address exactly as written (an authorize page that needs its trailing slash). */
  readonly exactUrl: (name: string) => string | undefined
  /** A token refresh address; `none` turns refreshing off (`null`). */
  readonly refreshUrl: (name: string) => string | null | undefined
  /** The server-wide wait between status checks of a publish in progress (`POSTWIRE_PLATFORM_POLL_INTERVAL_MS`). */
  readonly pollIntervalMs: number | undefined
}

/** The settings a server's environment gives a plugin's two sides (unset fields take the defaults). */
export interface EnvSettings {
  readonly publish?: object | undefined
  readonly connect?: object | undefined
}

/** What the platform lets Postwire do beyond publishing. */
export interface Capabilities {
  /** The platform has a creator's posting options (TikTok's creator_info). */
  readonly creatorInfo?: boolean | undefined
  /**
   * One consent may connect several accounts, and the person chooses which (Facebook Pages): the
   * connect page asks them to choose.
   */
  readonly choosesAccounts?: boolean | undefined
}

/** How a sandbox account of the platform behaves on the simulated platform. */
export interface SandboxBehaviour {
  /** Lifetimes of the simulated tokens; `null`: they do not expire. Default: none expires. */
  readonly tokens?: { readonly accessMs: number | null; readonly refreshMs: number | null } | undefined
  /** The id and public address a sandbox target publishes to (deterministic from `seed`). */
  readonly post?: ((input: PublishInput, seed: SandboxSeed) => { readonly id: string; readonly permalink: string | null }) | undefined
}

/** Deterministic ids for a sandbox post. */
export interface SandboxSeed {
  /** A 19-digit numeric id, stable for a given text. */
  readonly numericId: (text: string) => string
  /** An 11-character shortcode, stable for a given text. */
  readonly shortcode: (text: string) => string
  /** `{account id}:{target id}`. */
  readonly seed: string
  /** The account's handle without `@`. */
  readonly handle: string
}

/**
 * A platform for Postwire. `Publish` and `Connect` are the types of its publishing and connect
 * settings (`{}` when it has none); `Stored` is the schema of its accounts' stored credentials.
 */
export interface PlatformPlugin<
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds plugins of every settings type
  Publish = any,
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds plugins of every settings type
  Connect = any,
  Stored extends Schema.Top & { readonly DecodingServices: never } = Schema.Top & { readonly DecodingServices: never }
> {
  /**
   * The platform's word on the wire (`account.platform`, `/v1/accounts?platform=`): lowercase
   * letters, digits and `_`, starting with a letter, 2 to 32 characters.
   */
  readonly name: string
  /** The platform's name for people (the approval page, the connect page, errors). */
  readonly displayName: string
  /** What the platform accepts: caption, media, quota; checked by validate, create and publish. */
  readonly rules: TargetRules.PlatformRuleSet
  /**
   * The texts of the platform's own refusal reasons, by name, in English and Indonesian (the
   * `{detail}` its rules and publisher give: `ErrorDetail.catalogue(texts).reason(name, values)`).
   * The registry checks that each has both texts with the same `{placeholders}`. Absent: the
   * plugin uses the shared reasons of `ErrorDetail`, or gives its texts inline.
   */
  readonly reasons?: Readonly<Record<string, LocalizedText>> | undefined
  /**
   * Create requests for the API reference, by name (start the name with the platform's word): a
   * server's OpenAPI document shows the served platforms' examples for `POST /v1/posts` and
   * `POST /v1/posts/validate`. Each must be a body the server accepts once its placeholder ids
   * name a profile, accounts and media (`Post.examplePlaceholders.profileId`, `acc_…`, `med_…`).
   */
  readonly examples?: Readonly<Record<string, Post.RequestExample<typeof Post.CreatePostRequest.Encoded>>> | undefined
  /** Publishing (required). */
  readonly publish: PublishPart<Publish>
  /** Connecting accounts through the platform's OAuth; absent: accounts are created without it. */
  readonly connect?: ConnectPart<Connect> | undefined
  /**
   * The shape of an account's credentials: the JSON the connect side stores (sealed) in
   * `account.credentials` and the publisher reads back, as an Effect Schema whose type is that
   * JSON. Its folder reads and writes them with `Credentials.codec(schema)`; others with
   * `Credentials.of(plugin)`. Absent: any JSON (the plugin reads `account.credentials` itself).
   */
  readonly credentials?: Stored | undefined
  /**
   * The settings a server's environment gives it (`POSTWIRE_TIKTOK_CLIENT_KEY`, …): the names a
   * deployment sets are the plugin's own. Absent: the plugin's defaults (or its closure) are all.
   */
  readonly env?: ((read: EnvReader) => EnvSettings) | undefined
  /**
   * Per-target options: `targets[].<name>` in requests (decoded with `options.schema`, a failure
   * is 400 naming the field), completed or refused by `options.resolve` (422), stored with the
   * target, shown as `targets[].options.<name>` in responses, and read by the publisher as
   * `input.target.options[<name>]` (the encoded form). Absent: the platform's targets take none.
   */
  readonly options?: TargetRules.OptionsSpec | undefined
  /** How the platform's tokens are renewed; absent: halfway through their lifetime. */
  readonly tokenRenewal?: RenewalPolicy | undefined
  readonly capabilities?: Capabilities | undefined
  /**
   * The metrics the platform provides (documented, from the platform's own documentation, with
   * its addresses in `sources`), read by `publish.analytics`. Absent: no analytics.
   */
  readonly analytics?: AnalyticsCapabilities | undefined
  /** Sandbox accounts of the platform on the simulated platform. */
  readonly sandbox?: SandboxBehaviour | undefined
}

/** A secret given as plain text or already redacted. */
export type Secret = string | Redacted.Redacted<string>
