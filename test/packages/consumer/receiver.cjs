// A CommonJS webhook receiver's view of the packages: `require` works, the verifier checks a
// signature, and the SDK's Promise API loads.
const { sign, verify, SIGNATURE_HEADER } = require("@postwire/webhooks")
const { Postwire, PostwireApiError } = require("@postwire/client")

const main = async () => {
  const secret = "whsec_test_secret_for_the_consumer_check"
  const body = JSON.stringify({ id: "evt_1", type: "post.published", created_at: "2026-11-25T00:00:00.000Z", livemode: false, data: {} })
  const header = await sign(body, secret)
  const event = await verify(body, header, secret)
  let tampered = ""
  try {
    await verify(body.replace("evt_1", "evt_2"), header, secret)
  } catch (error) {
    tampered = error.reason
  }
  const client = new Postwire({ apiKey: "svc_test_x", baseUrl: "http://localhost:8080" })
  console.log(
    JSON.stringify({
      header: SIGNATURE_HEADER,
      verified: event.id,
      tampered,
      sdk: typeof client.posts.create,
      errorClass: typeof PostwireApiError
    })
  )
}
main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
