import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { reviewable } from "../src/ToolHandlers.ts"

const context = { locale: "en", docsBaseUrl: "https://postwire.example.com" } as const
const consent = { privacy_level: "PUBLIC_TO_EVERYONE", music_usage_confirmed: true }
const aRequest = (overrides: Record<string, unknown> = {}) => ({
  profile_id: "prof_1",
  caption: "Hello",
  media: ["med_1"],
  targets: [{ account_id: "acc_photo" }],
  ...overrides
})

describe("reviewable", () => {
  it("asks for approval through a link by default, keeping the notify settings", async () => {
    const { body, warnings } = await Effect.runPromise(
      reviewable(aRequest({ approval: { notify: { email: "editor@example.com" } } }), { allowSkipApproval: false }, context)
    )
    expect(body.approval).toEqual({ mode: "link", notify: { email: "editor@example.com" } })
    expect(warnings).toEqual([])
  })

  it("refuses approval mode none unless the operator allows it", async () => {
    const refused = await Effect.runPromiseExit(reviewable(aRequest({ approval: { mode: "none" } }), { allowSkipApproval: false }, context))
    expect(refused).toEqual(Exit.fail(expect.objectContaining({ error: expect.objectContaining({ code: "approval_required", field: "approval.mode" }) })))
    const allowed = await Effect.runPromise(reviewable(aRequest({ approval: { mode: "none" } }), { allowSkipApproval: true }, context))
    expect(allowed.body.approval).toEqual({ mode: "none" })
  })

  it("sets an agent's consent aside, and keeps a direct shortvideo post on the approval page even when skipping is allowed", async () => {
    const request = aRequest({
      approval: { mode: "none" },
      targets: [{ account_id: "acc_photo" }, { account_id: "acc_tiktok", shortvideo: { mode: "direct", consent } }]
    })
    const { body, warnings } = await Effect.runPromise(reviewable(request, { allowSkipApproval: true }, context))
    expect(body.targets).toEqual([{ account_id: "acc_photo" }, { account_id: "acc_tiktok", shortvideo: { mode: "direct" } }])
    expect(body.approval).toEqual({ mode: "link" })
    expect(warnings.map((w) => [w.code, w.field])).toEqual([
      ["consent_by_person", "targets[1].shortvideo.consent"],
      ["consent_by_person", "approval.mode"]
    ])
    expect(warnings[0]?.docs).toBe("https://postwire.example.com/docs/errors#consent_by_person")
  })
})
