/**
 * Answers for requests Node's HTTP parser refuses (an unknown method, a malformed request line
 * or header, headers too large, a chunked body with a bad chunk size): the shared error shape,
 * in English (no `Accept-Language` can be trusted from an unparsed request), then close.
 * Node's own answer would be a bare status line with an empty body.
 *
 * @since 0.1.0
 */
import type { Server } from "node:http"
import type { Duplex } from "node:stream"
import { ErrorDetail, PostwireError, renderError } from "@postwire/domain"
import * as RequestId from "../observability/RequestId.ts"

const statusText: Record<number, string> = { 400: "Bad Request", 413: "Payload Too Large", 431: "Request Header Fields Too Large" }

/** The most a request's line and headers may take (Node's `maxHeaderSize`). */
export const maxHeaderBytes = 64 * 1024

/** The status for a parser error code: headers too large is 431, everything else 400. */
const statusOf = (code: string | undefined) => (code === "HPE_HEADER_OVERFLOW" ? 431 : 400)

/** Writes one error answer on a raw socket and closes it. */
export const writeErrorAnswer = (socket: Duplex, status: number, error: PostwireError, publicUrl: string) => {
  // The request could not be read, so a caller's X-Request-Id cannot be trusted: a new id.
  const requestId = RequestId.make()
  const body = JSON.stringify({ error: { ...renderError(error, "en", publicUrl), request_id: requestId } })
  socket.end(
    `HTTP/1.1 ${status} ${statusText[status] ?? "Bad Request"}\r\n` +
      "Content-Type: application/json\r\n" +
      `X-Request-Id: ${requestId}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body
  )
}

/** Makes the server answer parser-level failures in the shared error shape. */
export const answerClientErrors = (server: Server, publicUrl: string): Server =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The client went away, or an answer already started on this connection: nothing more can be
    // written. A request whose body turns out malformed (a bad chunk size) after its route began
    // has an answer object but nothing sent yet: it is answered here, and the route's own answer,
    // if it comes, finds the connection closed.
    const started = (socket as { _httpMessage?: { readonly headersSent?: boolean } })._httpMessage?.headersSent === true
    if (error.code === "ECONNRESET" || !socket.writable || started) {
      socket.destroy()
      return
    }
    const status = statusOf(error.code)
    const problem =
      status === 431
        ? new PostwireError({ code: "headers_too_large", field: "headers", details: { limit: maxHeaderBytes } })
        : /CHUNK/.test(error.code ?? "")
          ? new PostwireError({ code: "invalid_request", field: "body", details: { detail: ErrorDetail.reason("chunked_encoding") } })
          : new PostwireError({ code: "invalid_request", field: error.code === "HPE_INVALID_METHOD" ? "method" : "request" })
    writeErrorAnswer(socket, status, problem, publicUrl)
  })
