import { describe, expect, it } from "vitest"
import {
  ErrorCatalog,
  ErrorDetail,
  errorCodes,
  localeFromAcceptLanguage,
  PostwireError,
  renderError,
  renderMessage
} from "../src/index.ts"

const specCodes = [
  "media_too_long", "privacy_level_mismatch", "quota_exceeded", "token_expired", "permission_missing",
  "platform_unavailable", "too_many_pending", "unauthorized", "insufficient_scope", "not_found", "invalid_url",
  "invalid_cursor", "invalid_range", "consent_required", "idempotency_conflict", "idempotency_in_progress",
  "payload_too_large", "unsupported_format", "quota_exceeded_for_day", "test_key_live_account", "already_decided",
  "invalid_redirect_url", "invalid_state", "account_forbidden", "approval_expired", "media_invalid", "account_restricted"
]

describe("ErrorCatalog", () => {
  it("holds every code of the spec and of the decisions", () => {
    for (const code of specCodes) expect(errorCodes).toContain(code)
  })

  it.each(errorCodes)("gives %s an English and an Indonesian text that differ", (code) => {
    const entry = ErrorCatalog[code]
    expect(entry.en.trim().length).toBeGreaterThan(10)
    expect(entry.indonesian.trim().length).toBeGreaterThan(10)
    expect(entry.indonesian).not.toBe(entry.en)
    expect(entry.en.match(/\{\w+\}/g) ?? []).toEqual(entry.indonesian.match(/\{\w+\}/g) ?? [])
    expect(entry.status).toBeGreaterThanOrEqual(400)
  })

  it("uses the statuses the spec names", () => {
    expect(ErrorCatalog.unauthorized.status).toBe(401)
    expect(ErrorCatalog.insufficient_scope.status).toBe(403)
    expect(ErrorCatalog.not_found.status).toBe(404)
    expect(ErrorCatalog.invalid_cursor.status).toBe(400)
    expect(ErrorCatalog.idempotency_conflict.status).toBe(409)
    expect(ErrorCatalog.consent_required.status).toBe(422)
    expect(ErrorCatalog.quota_exceeded_for_day.status).toBe(429)
    expect(ErrorCatalog.approval_expired.status).toBe(410)
    expect(ErrorCatalog.platform_unavailable.retryable).toBe(true)
    expect(ErrorCatalog.token_expired.retryable).toBe(false)
  })
})

describe("localeFromAcceptLanguage", () => {
  it.each([
    ["id", "id"],
    ["id-ID,id;q=0.9,en;q=0.8", "id"],
    ["en-US,en;q=0.9,id;q=0.8", "en"],
    ["en;q=0.5, id;q=0.9", "id"],
    ["fr", "en"],
    [undefined, "en"],
    ["", "en"],
    ["idx", "en"]
  ] as const)("reads %s as %s", (header, locale) => {
    expect(localeFromAcceptLanguage(header)).toBe(locale)
  })
})

describe("renderError", () => {
  it("fills placeholders, keeps message_id Indonesian and links the docs", () => {
    const error = new PostwireError({ code: "insufficient_scope", details: { scope: "posts:write" } })
    const rendered = renderError(error, "en", "https://api.example.com/")
    expect(rendered).toEqual({
      code: "insufficient_scope",
      message: "The API key lacks the scope posts:write that this endpoint requires.",
      message_id: "Kunci API tidak memiliki cakupan posts:write yang dibutuhkan endpoint ini.",
      retryable: false,
      docs: "https://api.example.com/docs/errors#insufficient_scope"
    })
    expect(renderError(error, "id", "https://x").message).toBe(rendered.message_id)
  })

  it("never leaves a placeholder unfilled", () => {
    for (const code of errorCodes) expect(renderMessage(code, "en")).not.toMatch(/[{}]/)
  })
})

describe("renderMessage", () => {
  const resolvesTo = (host: string, address: string, range: "loopback_address" | "unspecified_address" | "link_local_address") =>
    ErrorDetail.reason("resolves_to", { host, address, range: ErrorDetail.reason(range) })

  it("keeps an IPv6 address in an invalid_url detail as it is, in English and Indonesian", () => {
    const loopback = { detail: resolvesTo("[::1]", "::1", "loopback_address") }
    const unspecified = { detail: resolvesTo("hooks.example.com", "::", "unspecified_address") }

    expect(renderMessage("invalid_url", "en", loopback)).toBe(
      "The url must be a public https address: [::1] resolves to ::1, a loopback address"
    )
    expect(renderMessage("invalid_url", "id", loopback)).toBe(
      "url harus berupa alamat https publik: [::1] mengarah ke ::1, alamat loopback"
    )
    expect(renderMessage("invalid_url", "en", unspecified)).toBe(
      "The url must be a public https address: hooks.example.com resolves to ::, an unspecified address"
    )
    expect(renderMessage("invalid_url", "id", unspecified)).toBe(
      "url harus berupa alamat https publik: hooks.example.com mengarah ke ::, alamat yang tidak ditentukan"
    )
  })

  it("never rewrites a value's own punctuation, even at the end of the message", () => {
    expect(renderMessage("invalid_url", "en", { detail: "fe80::" })).toBe("The url must be a public https address: fe80::")
    expect(renderMessage("invalid_url", "id", { detail: "fe80::" })).toBe("url harus berupa alamat https publik: fe80::")
  })

  it("leaves out an empty placeholder with the space and colon it leaves behind", () => {
    expect(renderMessage("invalid_url", "en")).toBe("The url must be a public https address.")
    expect(renderMessage("invalid_url", "id", { detail: { en: "", id: "" } })).toBe("url harus berupa alamat https publik.")
    expect(renderMessage("insufficient_scope", "en")).toBe("The API key lacks the scope that this endpoint requires.")
    expect(renderMessage("invalid_request", "id", { detail: ErrorDetail.reason("required") })).toBe(
      "Permintaan tidak valid pada: wajib diisi"
    )
  })
})
