/**
 * Instants as the server's pages write them: a long date and the time in UTC, in the page's
 * language.
 *
 * @since 0.2.0
 */
import type { Locale } from "@postwire/domain"

/**
 * An instant as a person reads it on a page.
 *
 * @example
 * ```ts
 * formatDate(Date.UTC(2026, 11, 1, 9, 0), "en") // "1 December 2026 at 09:00 UTC"
 * ```
 */
export const formatDate = (at: number, locale: Locale): string =>
  `${new Intl.DateTimeFormat(locale === "id" ? "id-ID" : "en-GB", {
    dateStyle: "long",
    timeStyle: "short",
    timeZone: "UTC"
  }).format(at)} UTC`
