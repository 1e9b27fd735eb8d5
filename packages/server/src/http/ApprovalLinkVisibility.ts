/**
 * Answers without approval links, for keys made with `approval_links: hidden` and requests sent
 * with `Postwire-Approval-Links: hidden` (the MCP tool server's). Every JSON answer to such a
 * caller is rewritten once, at the edge, whatever the route (posts, batches, events, the
 * delivery log, idempotent replays), with `withoutApprovalLinks` from `@postwire/domain`: one
 * rule at the edge covers routes added later too.
 *
 * @since 0.6.0
 */
import { Effect } from "effect"
import { HttpBody, HttpServerResponse } from "effect/http"
import { mayHoldApprovalLink, withoutApprovalLinks } from "@postwire/domain"

/** The response with its JSON body rid of approval links; any other response as it is. */
export const hideApprovalLinks = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.includes("json")) return response
  const text = body.text ?? new TextDecoder().decode(body.body)
  if (!mayHoldApprovalLink(text)) return response
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return response
  }
  return HttpServerResponse.setBody(response, HttpBody.text(JSON.stringify(withoutApprovalLinks(parsed)), body.contentType))
}

/** Runs `httpEffect` and hides approval links in its answer. */
export const withApprovalLinksHidden = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => Effect.map(httpEffect, hideApprovalLinks)
