/**
 * The `Mailer` service: sends the e-mails of the engine (today, approval links).
 *
 * The server sends through SMTP in production; in development, {@link Mailer.layerDirectory}
 * writes every message as an `.eml` file and logs where, and tests read what was sent from
 * {@link Mailer.layerMemory}.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Clock, Context, Data, Effect, Layer } from "effect"

/** An e-mail to send; the sender address belongs to the mailer's configuration. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  /** The plain-text body. */
  readonly text: string
  /** The same content as HTML. */
  readonly html: string
}

/** Sending failed (the SMTP server refused, the directory is not writable, ...). */
export class MailError extends Data.TaggedError("MailError")<{ readonly cause: unknown }> {}

/** Sends e-mail. */
export class Mailer extends Context.Service<
  Mailer,
  {
    readonly send: (message: MailMessage) => Effect.Effect<void, MailError>
  }
>()("postwire/Mailer") {
  /**
   * A development mailer: each message becomes `<directory>/<time>-<random>.eml` (open it in any
   * mail program), and a log line says who it is for and where it was written.
   */
  static readonly layerDirectory = (directory: string, from: string): Layer.Layer<Mailer> =>
    Layer.succeed(Mailer)({
      send: (message) =>
        Effect.gen(function* () {
          const at = yield* Clock.currentTimeMillis
          const name = `${new Date(at).toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`
          const file = join(directory, name)
          yield* Effect.tryPromise({
            try: async () => {
              await mkdir(directory, { recursive: true })
              await writeFile(file, toEml(message, from, at))
            },
            catch: (cause) => new MailError({ cause })
          })
          yield* Effect.logInfo(`mail to ${message.to} written to ${file}`).pipe(
            Effect.annotateLogs({ subject: message.subject })
          )
        })
    })

  /** Keeps messages in memory; read them through {@link SentMail}. For tests. */
  static readonly layerMemory: Layer.Layer<Mailer | SentMail> = Layer.effectContext(
    Effect.sync(() => {
      const sent: Array<MailMessage> = []
      return Context.make(Mailer, { send: (message) => Effect.sync(() => void sent.push(message)) }).pipe(
        Context.add(SentMail, { messages: Effect.sync(() => [...sent]) })
      )
    })
  )

  /** A mailer that always fails, to show that a failed e-mail never fails the request. For tests. */
  static readonly layerFailing: Layer.Layer<Mailer> = Layer.succeed(Mailer)({
    send: () => Effect.fail(new MailError({ cause: new Error("the mail server refused the message") }))
  })
}

/** What {@link Mailer.layerMemory} was given to send, oldest first. */
export class SentMail extends Context.Service<
  SentMail,
  { readonly messages: Effect.Effect<ReadonlyArray<MailMessage>> }
>()("postwire/SentMail") {}

/** RFC 2047 encoding of a header value that may hold non-ASCII text. */
const encodeHeader = (value: string): string =>
  /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, "utf8").toString("base64")}?=`

/** A message as an RFC 5322 file with a plain-text and an HTML part. */
const toEml = (message: MailMessage, from: string, at: number): string => {
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
