/**
 * The production `Mailer`: SMTP through nodemailer, at `POSTWIRE_SMTP_URL`
 * (`smtp://user:pass@host:587` with STARTTLS when offered, or `smtps://…:465`).
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { MailError, Mailer } from "@postwire/core"
import type { Transporter } from "nodemailer"
import { renderMail } from "./ApprovalEmail.ts"

/** Where and as whom to send. */
export interface SmtpOptions {
  /** `smtp://` or `smtps://` URL, credentials included. */
  readonly url: string
  /** The sender, e.g. `Postwire <no-reply@example.com>`. */
  readonly from: string
}

/**
 * A `Mailer` over one pooled SMTP transport, closed with the layer. nodemailer is loaded and the
 * transport made on the first message, not at start (docs/performance.md, "The embedded default").
 */
export const layer = (options: SmtpOptions): Layer.Layer<Mailer> =>
  Layer.effect(
    Mailer,
    Effect.gen(function* () {
      let made: Transporter | undefined
      yield* Effect.addFinalizer(() => Effect.sync(() => made?.close()))
      const transport = yield* Effect.cached(
        Effect.promise(async () => {
          const { default: nodemailer } = await import("nodemailer")
          made = nodemailer.createTransport({
            url: options.url,
            pool: true,
            // Fail within seconds, not minutes: the sender waits (see docs/approvals.md).
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 20_000
          })
          return made
        })
      )
      return Mailer.of({
        send: (message) =>
          Effect.flatMap(transport, (smtp) =>
            Effect.tryPromise({
              try: () => {
                const mail = renderMail(message)
                return smtp.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
              },
              catch: (cause) => new MailError({ cause })
            })
          ).pipe(Effect.asVoid, Effect.withSpan("mail.smtp.send"))
      })
    })
  )
