import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { ApprovalToken, accountContext, CredentialsCipher, Cursor, Keyring, MediaUrls, SandboxConsent } from "../src/index.ts"

const oldSecret = "old-secret-0123456789abcdefghijklmnopqrstuvwxyz"
const newSecret = "new-secret-ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210"
const before = Keyring.make([oldSecret])
const rotated = Keyring.make([newSecret, oldSecret])
const afterwards = Keyring.make([newSecret])
const now = 1_767_225_600_000
const keyset = { sortKey: 42, id: "post_1" }

describe("Keyring", () => {
  it("derives one key per use, none of them the master itself", () => {
    const master = Keyring.newest(rotated)
    const keys = (["credentials", "approval-token", "approval-form", "media-url", "cursor", "sandbox-code"] as const).map((purpose) =>
      master.key(purpose).toString("hex")
    )
    assert.strictEqual(new Set(keys).size, keys.length)
    assert.notInclude(keys, Buffer.from(newSecret).toString("hex"))
    assert.notStrictEqual(Keyring.newest(rotated).id, rotated.masters[1].id)
  })

  it("credentials sealed under the old secret open after rotation, and are resealed under the new", () => {
    const context = accountContext("ws_1", "acc_1")
    const sealed = CredentialsCipher.make(before).seal('{"access_token":"t"}', context)
    const cipher = CredentialsCipher.make(rotated)
    assert.deepStrictEqual(cipher.open(sealed, context), Option.some('{"access_token":"t"}'))
    assert.isFalse(cipher.isCurrent(sealed))
    const resealed = cipher.seal('{"access_token":"t"}', context)
    assert.isTrue(cipher.isCurrent(resealed))
    assert.deepStrictEqual(CredentialsCipher.make(afterwards).open(resealed, context), Option.some('{"access_token":"t"}'))
    assert.isTrue(Option.isNone(CredentialsCipher.make(afterwards).open(sealed, context)))
    assert.isTrue(Option.isNone(cipher.open(resealed, accountContext("ws_1", "acc_2"))))
  })

  it("cursors signed under the old secret still decode after rotation, until it is dropped", () => {
    const cursor = Cursor.encodeCursor(before, keyset, "f", now)
    assert.deepStrictEqual(Cursor.decodeCursor(rotated, cursor, "f", now, 60_000), Option.some(keyset))
    assert.isTrue(Option.isNone(Cursor.decodeCursor(afterwards, cursor, "f", now, 60_000)))
    const fresh = Cursor.encodeCursor(rotated, keyset, "f", now)
    assert.deepStrictEqual(Cursor.decodeCursor(afterwards, fresh, "f", now, 60_000), Option.some(keyset))
  })

  it("accepts a cursor issued by 0.1 (signed with the master itself)", () => {
    const body = Buffer.from(JSON.stringify({ v: 1, s: 42, id: "post_1", f: "f", i: now })).toString("base64url")
    const legacy = `${body}.${createHmac("sha256", oldSecret).update(body).digest().subarray(0, 16).toString("base64url")}`
    assert.deepStrictEqual(Cursor.decodeCursor(rotated, legacy, "f", now, 60_000), Option.some(keyset))
    assert.isTrue(Option.isNone(Cursor.decodeCursor(afterwards, legacy, "f", now, 60_000)))
  })

  it("media addresses signed under the old secret verify after rotation", () => {
    const url = new URL(MediaUrls.signMediaUrl({ publicBaseUrl: "https://p.test", keyring: before }, { workspaceId: "ws_1", id: "med_1" }, now + 60_000))
    const exp = url.searchParams.get("exp") ?? undefined
    const sig = url.searchParams.get("sig") ?? undefined
    assert.isTrue(MediaUrls.verifyMediaUrl(rotated, "ws_1", "med_1", exp, sig, now))
    assert.isFalse(MediaUrls.verifyMediaUrl(afterwards, "ws_1", "med_1", exp, sig, now))
    assert.isFalse(MediaUrls.verifyMediaUrl(rotated, "ws_1", "med_2", exp, sig, now))
  })

  it("shows an approval's link under whichever listed secret made it, including a 0.1 token", () => {
    const token = ApprovalToken.approvalToken(before, "apr_1")
    const approval = { id: "apr_1", tokenHash: ApprovalToken.approvalTokenHash(token) }
    assert.strictEqual(ApprovalToken.approvalTokenOf(rotated, approval), token)
    assert.notStrictEqual(ApprovalToken.approvalTokenOf(afterwards, approval), token)
    const legacy = createHmac("sha256", oldSecret).update("approval:apr_2").digest("base64url")
    assert.strictEqual(ApprovalToken.approvalTokenOf(rotated, { id: "apr_2", tokenHash: ApprovalToken.approvalTokenHash(legacy) }), legacy)
    assert.notStrictEqual(ApprovalToken.approvalToken(rotated, "apr_1"), token)
  })

  it("signs sandbox codes with a key of its own, changed by a rotation", () => {
    assert.notStrictEqual(SandboxConsent.signingSecret(rotated), newSecret)
    assert.notStrictEqual(SandboxConsent.signingSecret(rotated), SandboxConsent.signingSecret(before))
  })
})
