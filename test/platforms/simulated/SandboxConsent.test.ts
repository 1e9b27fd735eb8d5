import { assert, describe, it } from "@effect/vitest"
import { SandboxConsent } from "@postwire/core"

const secret = "sandbox-secret"
const verifier = "v".repeat(43)
const redirectUri = "https://postwire.test/connect/callback/shortvideo"
const now = Date.UTC(2026, 10, 25, 12)

const aCode = (overrides: Partial<Parameters<typeof SandboxConsent.issue>[0]> = {}) =>
  SandboxConsent.issue({
    secret,
    now,
    platform: "shortvideo",
    redirectUri,
    codeChallenge: SandboxConsent.codeChallenge(verifier),
    accounts: [{ handle: "sandbox_creator", displayName: "Sandbox Creator" }],
    ...overrides
  })

const expected = { secret, now: now + 1000, platform: "shortvideo" as const, redirectUri, codeVerifier: verifier }

describe("SandboxConsent", () => {
  it("makes the PKCE challenge as the hex SHA-256 of the verifier", () => {
    assert.strictEqual(
      SandboxConsent.codeChallenge("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
  })

  it("reads back the accounts of a code it issued", () => {
    const read = SandboxConsent.read(aCode(), expected)
    assert.deepStrictEqual(read, {
      _tag: "Valid",
      accounts: [{ handle: "sandbox_creator", displayName: "Sandbox Creator" }]
    })
  })

  it("refuses a code signed with another secret, expired, for another callback, platform or verifier", () => {
    const code = aCode()
    assert.deepStrictEqual(SandboxConsent.read(code, { ...expected, secret: "other" }), { _tag: "Invalid", reason: "bad_signature" })
    assert.deepStrictEqual(SandboxConsent.read(code, { ...expected, now: now + SandboxConsent.codeLifetimeMs }), {
      _tag: "Invalid",
      reason: "expired"
    })
    assert.deepStrictEqual(SandboxConsent.read(code, { ...expected, redirectUri: `${redirectUri}x` }), {
      _tag: "Invalid",
      reason: "redirect_uri_mismatch"
    })
    assert.deepStrictEqual(SandboxConsent.read(code, { ...expected, platform: "photo" }), {
      _tag: "Invalid",
      reason: "platform_mismatch"
    })
    assert.deepStrictEqual(SandboxConsent.read(code, { ...expected, codeVerifier: "w".repeat(43) }), {
      _tag: "Invalid",
      reason: "code_verifier_mismatch"
    })
    assert.deepStrictEqual(SandboxConsent.read("sbx_abc", expected), { _tag: "Invalid", reason: "malformed" })
  })

  it("refuses a tampered payload even with a plausible shape", () => {
    const [body, signature] = aCode().slice(4).split(".") as [string, string]
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"))
    payload.accounts[0].handle = "someone_else"
    const forged = `sbx_${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${signature}`
    assert.deepStrictEqual(SandboxConsent.read(forged, expected), { _tag: "Invalid", reason: "bad_signature" })
  })

  it("round-trips the consent page's query and builds the callback the way a platform does", () => {
    const url = new URL(
      SandboxConsent.authorizeUrl("https://postwire.test/base", {
        platform: "pages",
        redirectUri,
        state: "st_1",
        codeChallenge: SandboxConsent.codeChallenge(verifier)
      })
    )
    assert.strictEqual(url.pathname, "/base/connect/sandbox/authorize")
    const params = SandboxConsent.readAuthorizeParams(url.searchParams)
    assert.strictEqual(params._tag, "Valid")
    if (params._tag !== "Valid") return
    assert.strictEqual(params.platform, "pages")
    const allowed = new URL(SandboxConsent.callbackUrl(params, { code: "sbx_x.y" }))
    assert.strictEqual(allowed.searchParams.get("code"), "sbx_x.y")
    assert.strictEqual(allowed.searchParams.get("state"), "st_1")
    const refused = new URL(SandboxConsent.callbackUrl(params, { refused: true }))
    assert.strictEqual(refused.searchParams.get("error"), "access_denied")
    assert.strictEqual(refused.searchParams.get("code"), null)
    url.searchParams.delete("code_challenge")
    assert.deepStrictEqual(SandboxConsent.readAuthorizeParams(url.searchParams), { _tag: "Invalid", parameter: "code_challenge" })
  })

  it("issues one account, or several only where the platform chooses accounts", () => {
    assert.throws(() => aCode({ accounts: [] }))
    assert.throws(() => aCode({ accounts: [{ handle: "a" }, { handle: "b" }] }))
    assert.throws(() => aCode({ accounts: [{ handle: "Not Valid" }] }))
    assert.throws(() => aCode({ platform: "pages", accounts: [{ handle: "page.one" }, { handle: "page.two" }], several: false }))
    const code = aCode({ platform: "pages", accounts: [{ handle: "page.one" }, { handle: "page.two" }], several: true })
    const read = SandboxConsent.read(code, { ...expected, platform: "pages" })
    assert.deepStrictEqual(read, {
      _tag: "Valid",
      accounts: [
        { handle: "page.one", displayName: "page.one" },
        { handle: "page.two", displayName: "page.two" }
      ]
    })
  })
})
