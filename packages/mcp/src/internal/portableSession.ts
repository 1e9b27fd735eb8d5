/**
 * A session id that carries its own session: the protocol version, capabilities and client
 * information the client sent in `initialize`, base64url-encoded. Any instance behind a load
 * balancer can rebuild the session from it, so no instance keeps sessions in memory.
 *
 * It is not a credential: every request carries the caller's API key, and the id only holds what
 * the client said about itself.
 *
 * @internal
 */
import { Schema } from "effect"

const prefix = "pw1."

const Session = Schema.Struct({
  protocolVersion: Schema.String,
  capabilities: Schema.Record(Schema.String, Schema.Unknown),
  clientInfo: Schema.Record(Schema.String, Schema.Unknown)
})

/** What a session id holds. */
export type Session = typeof Session.Type

const decodeSession = Schema.decodeUnknownOption(Schema.fromJsonString(Session))

/** The id of a session. */
export const encode = (session: Session): string =>
  `${prefix}${Buffer.from(JSON.stringify(session), "utf8").toString("base64url")}`

/** The session an id holds, or `undefined` for an id this server did not issue. */
export const decode = (id: string): Session | undefined => {
  if (!id.startsWith(prefix)) return undefined
  const decoded = decodeSession(Buffer.from(id.slice(prefix.length), "base64url").toString("utf8"))
  return decoded._tag === "Some" ? decoded.value : undefined
}
