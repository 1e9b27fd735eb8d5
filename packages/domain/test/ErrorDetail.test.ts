import { Result, Schema, SchemaParser } from "effect"
import { describe, expect, it } from "vitest"
import {
  ErrorCatalog,
  ErrorDetail,
  errorCodes,
  InstantInput,
  type LocalizedText,
  PostwireError,
  Post,
  RequestIssues,
  renderError,
  renderMessage
} from "../src/index.ts"
import { englishWord, prose } from "./Indonesian.ts"

/** A sample for every placeholder a reason may hold: identifiers, numbers, or texts of their own. */
const samples: Readonly<Record<string, string | number | LocalizedText>> = {
  value: "true",
  values: '"link", "none"',
  // instagram
  format: "PNG",
  width: 1080,
  height: 1920,
  min: 3,
  max: 10,
  prefix: "acc_",
  profile_id: "prof_01J9Z",
  platform: "shortvideo",
  days: 92,
  status: "published",
  host: "hooks.example.com",
  address: "10.0.0.1",
  range: ErrorDetail.reason("private_address"),
  source: ErrorDetail.reason("placeholder_profile"),
  seconds: 10,
  cause: "ECONNREFUSED",
  scopes: "posts:read, posts:write, webhooks:write",
  count: 2,
  post_id: "post_01J9Z",
  part: 3,
  part_size: 16777216,
  size: 734003200,
  received: 1000,
  expected: 16777216,
  limit: 4294967296,
  domains: "acme.com, example.com",
  ms: 2000,
  migrations: "0015_key_approval_links",
  loops: "publisher, dispatcher",
  workspace: "ws_01J9Z",
  cost: 1600,
  used: 8500
}

const placeholders = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort()

const reasonNames = Object.keys(ErrorDetail.reasons) as Array<ErrorDetail.Reason>
const resourceNames = Object.keys(ErrorDetail.resources) as Array<ErrorDetail.Resource>

/** A reason with every placeholder filled from the samples. */
const sampleReason = (name: ErrorDetail.Reason): LocalizedText => {
  const values = Object.fromEntries(placeholders(ErrorDetail.reasons[name].en).map((p) => [p, samples[p]!]))
  return (ErrorDetail.reason as (name: ErrorDetail.Reason, values?: object) => LocalizedText)(name, values)
}

/** Representative details of a code: every reason for `{detail}`, every resource for `{resource}`. */
const detailsOf = (code: (typeof errorCodes)[number]) => {
  const template = ErrorCatalog[code].en
  const base = {
    field: "targets[0].account_id",
    scope: "posts:write",
    platform: "shortvideo",
    limit: 15,
    duration: 90,
    retry_after: 30,
    resets_at: "2026-11-23T09:00:00.000Z"
  }
  const details = template.includes("{detail}") ? reasonNames.map((name) => ({ ...base, detail: sampleReason(name) })) : [base]
  return template.includes("{resource}")
    ? details.flatMap((d) => resourceNames.map((name) => ({ ...d, resource: ErrorDetail.resource(name) })))
    : details
}

describe("ErrorDetail", () => {
  it.each(reasonNames)("gives the reason %s both texts with the same placeholders", (name) => {
    const { en, id } = ErrorDetail.reasons[name]
    expect(en.trim()).not.toBe("")
    expect(id.trim()).not.toBe("")
    expect(id).not.toBe(en)
    expect(placeholders(id)).toEqual(placeholders(en))
    for (const p of placeholders(en)) expect(samples, `a sample for {${p}}`).toHaveProperty(p)
  })

  it("names every resource in both languages", () => {
    for (const name of resourceNames) {
      expect(ErrorDetail.resource(name).en).not.toBe("")
      expect(ErrorDetail.resource(name).id).not.toBe("")
    }
    expect(ErrorDetail.resource("post")).toEqual({ en: "post", id: "unggahan" })
  })

  it("fills a reason's placeholders in each language, texts in their own language", () => {
    const range = ErrorDetail.reason("loopback_address")
    expect(ErrorDetail.reason("resolves_to", { host: "intranet.example.com", address: "127.0.0.1", range })).toEqual({
      en: "intranet.example.com resolves to 127.0.0.1, a loopback address",
      id: "intranet.example.com mengarah ke 127.0.0.1, alamat loopback"
    })
  })

  it("finds a reason by its exact English text, for messages written outside the catalog", () => {
    expect(ErrorDetail.fromEnglish("must be an e-mail address")).toEqual(ErrorDetail.reasons.email)
    expect(ErrorDetail.fromEnglish("must be an e-mail")).toBeUndefined()
    expect(ErrorDetail.fromEnglish('must be an id starting with "{prefix}"')).toBeUndefined()
  })
})

describe("renderMessage with details", () => {
  it.each(errorCodes)("renders %s in Indonesian without an English word, whatever its details", (code) => {
    for (const details of detailsOf(code)) {
      const indonesian = renderMessage(code, "id", details)
      expect(prose(indonesian), indonesian).not.toMatch(englishWord)
      expect(indonesian).not.toMatch(/[{}]/)
      expect(renderMessage(code, "en", details)).not.toMatch(/[{}]/)
    }
  })

  it("puts each language's detail in its message, and keeps message_id Indonesian", () => {
    const error = new PostwireError({
      code: "invalid_state",
      details: { resource: ErrorDetail.resource("post"), detail: ErrorDetail.reason("publishing_started") }
    })
    const english = renderError(error, "en", "https://x")
    expect(english.message).toBe("The post cannot be changed in its current state: publishing has started")
    expect(english.message_id).toBe("Tidak dapat mengubah unggahan dalam status saat ini: publikasi sudah dimulai")
    expect(renderError(error, "id", "https://x").message).toBe(english.message_id)
    expect(error.message).toBe(english.message)
  })

  it("keeps the English wording that clients already read", () => {
    const invalid = (detail: LocalizedText) => renderMessage("invalid_request", "en", { field: "caption", detail })
    expect(invalid(ErrorDetail.reason("required"))).toBe("The request is invalid at caption: is required")
    expect(invalid(ErrorDetail.reason("unknown_field"))).toBe("The request is invalid at caption: is not a known field")
    expect(renderMessage("invalid_range", "en", { detail: ErrorDetail.reason("range_order") })).toBe(
      "The date range is invalid: `to` must be after `from`"
    )
    expect(renderMessage("invalid_url", "en", { detail: ErrorDetail.reason("url_not_https") })).toBe(
      "The url must be a public https address: it must use https"
    )
  })
})

describe("RequestIssues.describe", () => {
  const issuesOf = (schema: Schema.ConstraintDecoder<unknown>, input: unknown) => {
    const result = SchemaParser.decodeUnknownResult(schema)(input, { errors: "all", onExcessProperty: "error" })
    if (!Result.isFailure(result)) throw new Error("expected a failure")
    return RequestIssues.describe(result.failure).map((i) => [i.path.join("."), i.detail])
  }

  it("describes a missing, an unknown and a mistyped field with catalog reasons", () => {
    const issues = issuesOf(Post.CreatePostRequest, {
      caption: 5,
      media: [],
      targets: [{ account_id: "nope", photo: { type: "square" } }],
      approval: { notify: { email: "someone" } },
      surprise: true
    })
    expect(issues).toEqual(
      expect.arrayContaining([
        ["profile_id", ErrorDetail.reason("required")],
        ["surprise", ErrorDetail.reason("unknown_field")],
        ["caption", ErrorDetail.reason("must_be_string")],
        ["media", ErrorDetail.reason("must_not_be_empty")],
        ["targets.0.account_id", ErrorDetail.reason("id_prefix", { prefix: "acc_" })],
        ["targets.0.photo.type", ErrorDetail.reason("must_be_one_of", { values: '"reel", "feed", "story"' })],
        ["approval.notify.email", ErrorDetail.reason("email")]
      ])
    )
  })

  it("reads a check's English message as the reason with that text", () => {
    expect(issuesOf(InstantInput, "tomorrow")).toEqual([
      ["", ErrorDetail.reason("instant_with_offset")]
    ])
  })

  it("keeps Effect's English and says it plainly in Indonesian when the catalog has no words", () => {
    const [issue] = issuesOf(Schema.String.check(Schema.isPattern(/^x/)), "y")
    const detail = issue![1] as LocalizedText
    expect(detail.id).toBe(ErrorDetail.reasons.invalid_value.id)
    expect(detail.en).toMatch(/^expected /)
  })
})
