/**
 * The `Mailer` service: sends the e-mails of the engine (today, approval links).
 *
 * The engine hands the mailer what to say, as data ({@link MailMessage}: who, which post, the
 * link, the language); the words and the HTML are the server's, beside the approval page it
 * links to. The server sends through SMTP in production and, in development, writes `.eml`
 * files (`FileMailer` of `@postwire/server`); tests read what was sent from
 * {@link Mailer.layerMemory}.
 *
 * @since 0.1.0
 */
import { Context, Data, Effect, Layer } from "effect"
import type { Locale, Platform } from "@postwire/domain"

/** An approval link to send to the person who decides on a post. */
export interface ApprovalRequestMail {
  readonly _tag: "ApprovalRequest"
  /** The approver's address (`approval.notify.email`). */
  readonly to: string
  /** The language of the e-mail (`approval.notify.locale`). */
  readonly locale: Locale
  readonly postId: string
  readonly caption: string
  /** The accounts the post goes to. */
  readonly destinations: ReadonlyArray<{ readonly platform: Platform; readonly handle: string }>
  /** When it publishes once approved; `null`: as soon as it is approved. */
  readonly scheduledAt: number | null
  /** The approval link. */
  readonly url: string
  readonly expiresAt: number
}

/** An e-mail to send, as data; the sender address belongs to the mailer's configuration. */
export type MailMessage = ApprovalRequestMail

/** Sending failed (the SMTP server refused, the directory is not writable, ...). */
export class MailError extends Data.TaggedError("MailError")<{ readonly cause: unknown }> {}

/** Sends e-mail. */
export class Mailer extends Context.Service<
  Mailer,
  {
    readonly send: (message: MailMessage) => Effect.Effect<void, MailError>
  }
>()("postwire/Mailer") {
  /** Keeps messages in memory; read them through {@link SentMail}. For tests and embedding. */
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
