/**
 * The approval page's decision form: its field names and ids, what the person chose, and the
 * checks TikTok requires before anything is sent (a privacy level from the creator's options,
 * a brand chosen when content is disclosed, branded content not private, the declaration that
 * matches the choices).
 *
 * @since 0.1.0
 */
import type { Approvals, CreatorInfo } from "@postwire/core"
import { type Locale, type Post, type PostwireError, renderMessage, TargetRules } from "@postwire/domain"
import { texts } from "./ApprovalTexts.ts"

type Summary = Approvals.PageSummary
type PrivacyLevel = Post.Consent["privacy_level"]

/** The element ids of one target's consent fields (for labels, the summary and `aria-describedby`). */
export const idsOf = (targetId: string) => ({
  privacy: `privacy-${targetId}`,
  comment: `comment-${targetId}`,
  duet: `duet-${targetId}`,
  stitch: `stitch-${targetId}`,
  disclose: `disclose-${targetId}`,
  yourBrand: `brand-organic-${targetId}`,
  branded: `branded-${targetId}`,
  brandOptions: `brands-${targetId}`
})
/** The form field names of one target's consent. */
export const fieldsOf = (targetId: string) => ({
  privacy: `privacy_level.${targetId}`,
  comment: `allow_comment.${targetId}`,
  duet: `allow_duet.${targetId}`,
  stitch: `allow_stitch.${targetId}`,
  disclose: `disclose.${targetId}`,
  yourBrand: `brand_organic.${targetId}`,
  branded: `branded_content.${targetId}`
})

/** What the person chose in one consent form. */
export interface ConsentValues {
  readonly privacy: string
  readonly allowComment: boolean
  readonly allowDuet: boolean
  readonly allowStitch: boolean
  readonly disclose: boolean
  readonly yourBrand: boolean
  readonly branded: boolean
}

/** A consent form before any choice: nothing chosen, every switch off. */
export const blankValues: ConsentValues = {
  privacy: "",
  allowComment: false,
  allowDuet: false,
  allowStitch: false,
  disclose: false,
  yourBrand: false,
  branded: false
}

/** A problem with the form, shown in the summary and beside its field. */
export interface FieldProblem {
  /** The id of the field it concerns (for the summary's link and `aria-describedby`). */
  readonly fieldId: string
  readonly message: string
}

/** What the form shows: the choices made so far and what is wrong with them. */
export interface FormState {
  readonly csrf: string
  readonly values: Readonly<Record<string, ConsentValues>>
  readonly reason: string
  readonly problems: ReadonlyArray<FieldProblem>
}

/** A form as sent by the browser. */
export type FormFields = Readonly<Record<string, string | undefined>>

/** Whether a submitted privacy level is one of the creator's options. */
const isPrivacyLevel = (value: string, creator: CreatorInfo): value is PrivacyLevel =>
  creator.privacyLevelOptions.includes(value)

/** The targets of the page whose consent form can be filled in, with the creator's options. */
export const targetsWithForm = (summary: Summary) =>
  summary.targets.flatMap((t) =>
    t.consentForm?._tag === "Ready" ? [{ target: t.target, account: t.account, creator: t.consentForm.creator }] : []
  )

/** An account's handle as the page shows it, with one `@`. */
export const handleOf = (t: Approvals.PageTarget | { readonly account: Approvals.PageTarget["account"] }) =>
  `@${(t.account?.handle ?? "").replace(/^@/, "")}`

/** Whether any consent form of the page has branded content chosen. */
const brandedChosen = (values: FormState["values"]) => Object.values(values).some((v) => v.disclose && v.branded)

/** Which declaration the page shows for these choices. */
export const declarationFor = (values: FormState["values"]): "music" | "branded" =>
  brandedChosen(values) ? "branded" : "music"

/** What a submitted form asks for, checked as TikTok requires before anything is sent. */
export interface SubmittedForm {
  readonly decision: "approve" | "reject" | undefined
  readonly reason: string
  readonly values: Readonly<Record<string, ConsentValues>>
  /** Consent per target, when the form is complete. */
  readonly consent: Readonly<Record<string, Post.Consent>>
  readonly problems: ReadonlyArray<FieldProblem>
}

/** Reads the decision, the reason and each consent form from a submitted form. */
export const readForm = (fields: FormFields, summary: Summary, locale: Locale): SubmittedForm => {
  const t = texts[locale]
  const decision = fields.decision === "approve" || fields.decision === "reject" ? fields.decision : undefined
  const values: Record<string, ConsentValues> = {}
  const consent: Record<string, Post.Consent> = {}
  const problems: Array<FieldProblem> = []
  for (const { target, account, creator } of targetsWithForm(summary)) {
    const names = fieldsOf(target.id)
    const on = (name: string) => fields[name] === "on"
    const v: ConsentValues = {
      privacy: fields[names.privacy] ?? "",
      allowComment: on(names.comment) && !creator.commentDisabled,
      allowDuet: on(names.duet) && !creator.duetDisabled,
      allowStitch: on(names.stitch) && !creator.stitchDisabled,
      disclose: on(names.disclose),
      yourBrand: on(names.yourBrand),
      branded: on(names.branded)
    }
    values[target.id] = v
    if (decision !== "approve") continue
    const handle = handleOf({ account })
    const ids = idsOf(target.id)
    if (!isPrivacyLevel(v.privacy, creator)) {
      problems.push({ fieldId: ids.privacy, message: t.choosePrivacy(handle) })
      continue
    }
    if (v.disclose && !v.yourBrand && !v.branded) {
      problems.push({ fieldId: ids.yourBrand, message: t.chooseBrand(handle) })
      continue
    }
    if (TargetRules.consentRuleBreak({ privacy_level: v.privacy, branded_content: v.disclose && v.branded }) !== undefined) {
      problems.push({ fieldId: ids.privacy, message: t.brandedPrivate(handle) })
      continue
    }
    consent[target.id] = {
      privacy_level: v.privacy,
      music_usage_confirmed: true,
      disable_comment: !v.allowComment,
      disable_duet: !v.allowDuet,
      disable_stitch: !v.allowStitch,
      brand_organic: v.disclose && v.yourBrand,
      branded_content: v.disclose && v.branded
    }
  }
  // The person must have seen the declaration that matches their choices before approving.
  const withForms = Object.keys(values).length > 0
  if (decision === "approve" && withForms && problems.length === 0 && fields.declaration !== declarationFor(values)) {
    problems.push({ fieldId: "declaration", message: t.declarationChanged })
  }
  return { decision, reason: (fields.reason ?? "").slice(0, 1000), values, consent, problems }
}

/** A failed decision's error, placed beside the field it concerns when there is one. */
export const problemOfError = (error: PostwireError, locale: Locale): FieldProblem => ({
  fieldId: error.targetId === undefined ? "decision" : idsOf(error.targetId).privacy,
  message: renderMessage(error.code, locale, { ...error.details, field: error.field })
})


/** The form as first shown: nothing chosen, every switch off. */
export const emptyForm = (csrf: string): FormState => ({ csrf, values: {}, reason: "", problems: [] })
