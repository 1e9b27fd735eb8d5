import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { nodeCrypto, nodeSigner, signerV1, webSigner } from "../src/internal/hmac.ts"

const secret = "whsec_c2VjcmV0LWZvci10aGUtaG1hYy10ZXN0cw"
const body = JSON.stringify({ id: "evt_1", caption: "Halo dunia ✨ — naïve café", data: { n: 1 } })
const expected = createHmac("sha256", secret).update(`1795309323.${body}`).digest("hex")

describe("v1 signers", () => {
  it("uses node:crypto synchronously on Node", () => {
    expect(nodeCrypto).toBeDefined()
    expect(signerV1(secret)(1795309323, body)).toBe(expected)
  })

  it("signs a string body and its UTF-8 bytes alike, on node:crypto and on Web Crypto", async () => {
    const bytes = new TextEncoder().encode(body)
    const node = nodeSigner(nodeCrypto!, secret)
    const web = webSigner(secret)
    expect(node(1795309323, body)).toBe(expected)
    expect(node(1795309323, bytes)).toBe(expected)
    expect(await web(1795309323, body)).toBe(expected)
    expect(await web(1795309323, bytes)).toBe(expected)
  })

  it("keeps each secret's signer apart", () => {
    const other = signerV1(`${secret}x`)(1795309323, body)
    expect(other).not.toBe(expected)
    expect(signerV1(secret)(1795309323, body)).toBe(expected)
  })
})
