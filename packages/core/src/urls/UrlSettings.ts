/**
 * The settings of outbound addresses and the words for a refused one. Webhook endpoints, media
 * imports and a plugin's server address all check an address the engine will call with
 * `UrlSafety`; these are the one setting that loosens it (loopback, for local development) and
 * the `detail` a refused address is answered with.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import { ErrorDetail, type LocalizedText } from "@postwire/domain"
import { isLoopbackHost, type UnsafeUrl } from "./UrlSafety.ts"

/** The outbound-address setting: named for webhooks, where it began; media imports read it too. */
export interface WebhookSettingsShape {
  /**
   * `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS`: lets loopback targets (127.0.0.0/8,
   * `localhost`, `[::1]`) through, over http or https, for local development and tests.
   */
  readonly allowLoopback: boolean
}

/** The outbound-address settings (`POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS`). */
export class WebhookSettings extends Context.Service<WebhookSettings, WebhookSettingsShape>()(
  "postwire/WebhookSettings"
) {
  /** Fixed settings. */
  static readonly layer = (settings: WebhookSettingsShape): Layer.Layer<WebhookSettings> =>
    Layer.succeed(WebhookSettings)(settings)
}

/** What kind of address a refused URL names, for the `detail` of `invalid_url`. */
const addressRanges = {
  loopback: "loopback_address",
  private_address: "private_address",
  link_local: "link_local_address",
  cgnat: "cgnat_address",
  unique_local: "unique_local_address",
  multicast: "multicast_address",
  unspecified: "unspecified_address",
  reserved: "reserved_address"
} as const

/** Why a URL was refused, for the `detail` of `invalid_url`. */
export const describeUnsafeUrl = (error: UnsafeUrl): LocalizedText => {
  switch (error.reason) {
    case "not_a_url":
      return ErrorDetail.reason("url_not_absolute")
    case "not_https":
      // Refused only because loopback is not allowed: say which setting allows it.
      return error.host !== undefined && isLoopbackHost(error.host)
        ? ErrorDetail.reason("url_loopback_not_allowed", { host: error.host })
        : ErrorDetail.reason("url_not_https")
    case "credentials":
      return ErrorDetail.reason("url_credentials")
    case "unresolvable":
      return error.host === undefined
        ? ErrorDetail.reason("unnamed_host_unresolvable")
        : ErrorDetail.reason("host_unresolvable", { host: error.host })
    default: {
      if (error.reason === "loopback" && error.host !== undefined && isLoopbackHost(error.host)) {
        return ErrorDetail.reason("url_loopback_not_allowed", { host: error.host })
      }
      const range = ErrorDetail.reason(addressRanges[error.reason])
      return error.address !== undefined && error.host !== undefined && error.address !== error.host
        ? ErrorDetail.reason("resolves_to", { host: error.host, address: error.address, range })
        : range
    }
  }
}
