import { describe, expect, it } from "vitest"
import { Signature } from "../src/index.ts"

// The worked example of @postwire/webhooks' README, which its verifier is tested against.
const example = {
  secret: "whsec_5Ox1kH3f9gq2D6cJtqQhFZ2m0Vw8Yb7nXe4RaLsPzUk",
  t: 1795309323,
  body: '{"id":"evt_01JD8XK2M3N4P5Q6R7S8T9V0W1","type":"post.approved","created_at":"2026-11-22T01:02:03.456Z","livemode":false,"data":{}}',
  header: "t=1795309323,v1=2f56b80c46ee8d7c35f06506520f5a1bfbad2139dd87965043f6d38a9799c30f"
}

describe("Signature", () => {
  it("signs exactly as @postwire/webhooks verifies: the whole secret as the key, over t, a period and the body", () => {
    expect(Signature.signatureHeader(example.secret, example.t, example.body)).toBe(example.header)
  })

  it("carries one v1 per secret during a rotation, the new secret's first", () => {
    const header = Signature.signatureHeader(["whsec_new", example.secret], example.t, example.body)

    expect(header).toBe(`${example.header.replace("v1=", `v1=${Signature.signPayload("whsec_new", example.t, example.body)},v1=`)}`)
  })
})
