import type { WebhookEvent } from "@postwire/webhooks"
import { createReceiver } from "./receiver.ts"

const secret = process.env.POSTWIRE_WEBHOOK_SECRET
if (secret === undefined || secret === "") {
  console.error("Set POSTWIRE_WEBHOOK_SECRET to the whsec_... secret that POST /v1/webhooks returned.")
  process.exit(1)
}
const port = Number(process.env.PORT ?? 3000)

const logEvent = (event: WebhookEvent): void => {
  switch (event.type) {
    case "post.published":
      console.log(`${event.data.target_id} is live on ${event.data.platform}: ${event.data.permalink}`)
      break
    case "post.failed":
      console.log(`${event.data.target_id} failed (${event.data.error.code}): ${event.data.error.message}`)
      break
    default:
      console.log(`${event.type} ${event.id}${event.test === true ? " (test)" : ""}`)
  }
}

createReceiver({ secret, onEvent: logEvent }).listen(port, () => {
  console.log(`Receiving Postwire webhooks on http://localhost:${port}/`)
})
