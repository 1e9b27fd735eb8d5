/**
 * The handler of `POST /v1/approvals/{token}/decision`: public, the token is the credential.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Approvals } from "@postwire/core"
import { Api } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { respond } from "../http/Failures.ts"
import { requestLocale } from "../http/Locale.ts"
import * as Views from "../http/Views.ts"

/** The `approvals` group of the public API. */
export const ApprovalsHandlers = HttpApiBuilder.group(Api, "approvals", (handlers) =>
  handlers.handle("decide", ({ params, payload }) =>
    Effect.gen(function* () {
      const locale = yield* requestLocale
      const { publicUrl } = yield* ServerConfig
      return yield* respond(Effect.map(Approvals.decideApproval(params.token, payload), (d) => Views.decision(d, locale, publicUrl)))
    })
  )
)
