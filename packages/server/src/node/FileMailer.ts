/**
 * A development `Mailer` on Node's file system: each message is worded by the server (the
 * approval e-mail beside the approval page) and written as `<directory>/<time>-<random>.eml`
 * (open it in any mail program), with a log line saying where it went (not to whom, nor its subject).
 *
 * @since 0.4.0
 */
import { randomBytes } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Clock, Effect, Layer } from "effect"
import { MailError, Mailer } from "@postwire/core"
import { type RenderedMail, renderMail } from "../approvals/ApprovalEmail.ts"

/** A `Mailer` writing `.eml` files into `directory`, sent as `from`. */
export const layer = (directory: string, from: string): Layer.Layer<Mailer> =>
  Layer.succeed(Mailer)({
    send: (message) =>
      Effect.gen(function* () {
        const mail = renderMail(message)
        const at = yield* Clock.currentTimeMillis
        const name = `${new Date(at).toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`
        const file = join(directory, name)
        yield* Effect.tryPromise({
          try: async () => {
            await mkdir(directory, { recursive: true })
            await writeFile(file, toEml(mail, from, at))
          },
          catch: (cause) => new MailError({ cause })
        })
        // Where it went, never to whom or about what: the address and the caption stay out of the log.
        yield* Effect.logInfo(`mail written to ${file}`)
      })
  })

/** RFC 2047 encoding of a header value that may hold non-ASCII text. */
const encodeHeader = (value: string): string =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, "utf8").toString("base64")}?=`

/** A message as an RFC 5322 file with a plain-text and an HTML part. */
export const toEml = (message: RenderedMail, from: string, at: number): string => {
  const boundary = `postwire-${randomBytes(8).toString("hex")}`
  const single = (value: string) => value.replace(/[\r\n]+/g, " ")
  return [
    `From: ${single(from)}`,
    `To: ${single(message.to)}`,
    `Subject: ${encodeHeader(single(message.subject))}`,
    `Date: ${new Date(at).toUTCString()}`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    message.text,
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    message.html,
    `--${boundary}--`,
    ""
  ].join("\r\n")
}
