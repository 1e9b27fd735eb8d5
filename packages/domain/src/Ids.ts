/**
 * Identifiers: a resource prefix plus 26 characters of a time-ordered random id.
 *
 * Ids are opaque to clients; the prefix only tells a human what kind of resource an id names.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as ErrorDetail from "./ErrorDetail.ts"

/** The prefix of every kind of identifier, exactly as the API documents them. */
export const prefixes = {
  post: "post_",
  target: "tgt_",
  approval: "apr_",
  profile: "prof_",
  media: "med_",
  account: "acc_",
  webhook: "wh_",
  event: "evt_",
  workspace: "ws_",
  key: "key_",
  delivery: "dlv_",
  connectLink: "cnl_",
  comment: "cmt_"
} as const

/** A kind of identifier. */
export type IdKind = keyof typeof prefixes

/** An id written the way the documentation elides one: `prof_…`, `acc_...`. */
export const isPlaceholderId = (value: string): boolean => /(\u2026|\.\.\.)/.test(value) && value.length <= 64

/** Where a real id of each kind comes from, for the message that answers a placeholder. */
const placeholderSource = (kind: IdKind) =>
  kind === "profile"
    ? ErrorDetail.reason("placeholder_profile")
    : kind === "account"
      ? ErrorDetail.reason("placeholder_account")
      : kind === "media"
        ? ErrorDetail.reason("placeholder_media")
        : ErrorDetail.reason("placeholder_id", { prefix: prefixes[kind] })

const idString = (kind: IdKind) => {
  const prefix = prefixes[kind]
  const pattern = new RegExp(`^${prefix}[A-Za-z0-9]{1,60}$`)
  return Schema.String.check(
    // Each filter says what it adds to the JSON Schema (OpenAPI, MCP tools): a filter without
    // `toJsonSchema` is dropped from it, and the description of a field using the id with it.
    Schema.makeFilter((value: string) => !isPlaceholderId(value), {
      ...ErrorDetail.annotation(ErrorDetail.reason("id_placeholder", { value: `${prefix}…`, source: placeholderSource(kind) })),
      toJsonSchema: () => ({})
    }),
    Schema.makeFilter(
      // A placeholder is answered above, once.
      (value: string) => isPlaceholderId(value) || pattern.test(value),
      { ...ErrorDetail.annotation(ErrorDetail.reason("id_prefix", { prefix })), toJsonSchema: () => ({ pattern: pattern.source }) }
    )
  )
}

/** A post id, `post_…`. */
export const PostId = idString("post").pipe(Schema.brand("PostId"))
export type PostId = typeof PostId.Type
/** A target id, `tgt_…`. */
export const TargetId = idString("target").pipe(Schema.brand("TargetId"))
export type TargetId = typeof TargetId.Type
/** An approval id, `apr_…`. */
export const ApprovalId = idString("approval").pipe(Schema.brand("ApprovalId"))
export type ApprovalId = typeof ApprovalId.Type
/** A profile id, `prof_…`. */
export const ProfileId = idString("profile").pipe(Schema.brand("ProfileId"))
export type ProfileId = typeof ProfileId.Type
/** A media id, `med_…`. */
export const MediaId = idString("media").pipe(Schema.brand("MediaId"))
export type MediaId = typeof MediaId.Type
/** An account id, `acc_…`. */
export const AccountId = idString("account").pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type
/** A webhook endpoint id, `wh_…`. */
export const WebhookId = idString("webhook").pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
/** A webhook event id, `evt_…`. */
export const EventId = idString("event").pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type
/** A workspace id, `ws_…`. */
export const WorkspaceId = idString("workspace").pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type
/** An API key id, `key_…` (the key's public handle, never the secret). */
export const KeyId = idString("key").pipe(Schema.brand("KeyId"))
export type KeyId = typeof KeyId.Type
/** A comment id, `cmt_…`. */
export const CommentId = idString("comment").pipe(Schema.brand("CommentId"))
export type CommentId = typeof CommentId.Type
/** A webhook delivery id, `dlv_…`. */
export const DeliveryId = idString("delivery").pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type
/** A connect link id, `cnl_…`. */
export const ConnectLinkId = idString("connectLink").pipe(Schema.brand("ConnectLinkId"))
export type ConnectLinkId = typeof ConnectLinkId.Type

/** The branded id type of each kind: `IdOf<"post">` is {@link PostId}. */
export interface IdTypes {
  readonly post: PostId
  readonly target: TargetId
  readonly approval: ApprovalId
  readonly profile: ProfileId
  readonly media: MediaId
  readonly account: AccountId
  readonly webhook: WebhookId
  readonly event: EventId
  readonly workspace: WorkspaceId
  readonly key: KeyId
  readonly delivery: DeliveryId
  readonly connectLink: ConnectLinkId
  readonly comment: CommentId
}

/** The branded id type of a kind. */
export type IdOf<K extends IdKind> = IdTypes[K]

/**
 * Brands a string as an id of `kind` without checking it: a row read
 * back from the database, an id the engine made itself, a test fixture, a path parameter looked up
 * as it is (a string that is no such id simply finds nothing). Request bodies from outside (HTTP,
 * MCP) are decoded through the schemas above instead.
 */
export const unchecked = <K extends IdKind>(_kind: K, value: string): IdOf<K> => value as IdOf<K>
