/**
 * The production `Mailer`: SMTP through nodemailer, at `POSTWIRE_SMTP_URL`
 * (`smtp://user:pass@host:587` with STARTTLS when offered, or `smtps://…:465`).
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { MailError, Mailer } from "@postwire/core"
import nodemailer from "nodemailer"
import { renderMail } from "./ApprovalEmail.ts"

/** Where and as whom to send. */
export interface SmtpOptions {
  /** `smtp://` or `smtps://` URL, credentials included. */
  readonly url: string
  /** The sender, e.g. `Postwire <no-reply@example.com>`. */
  readonly from: string
}

/** A `Mailer` over one pooled SMTP transport, closed with the layer. */
export const layer = (options: SmtpOptions): Layer.Layer<Mailer> =>
  Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const transport = yield* Effect.acquireRelease(
        Effect.sync(() =>
          nodemailer.createTransport({
            url: options.url,
            pool: true,
            // Fail within seconds, not minutes: the sender waits (see docs/approvals.md).
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 20_000
          })
        ),
        (t) => Effect.sync(() => t.close())
      )
      return Mailer.of({
        send: (message) =>
          Effect.tryPromise({
            try: () => {
              const mail = renderMail(message)
              return transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
            },
            catch: (cause) => new MailError({ cause })
          }).pipe(Effect.asVoid, Effect.withSpan("mail.smtp.send"))
      })
    })
  )
