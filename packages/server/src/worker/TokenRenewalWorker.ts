/**
 * Token refresh in the server: the `TokenRenewal` loop of `@postwire/core`, run for as long as
 * the server does on an instance with role `worker` or `all` (docs/accounts.md states the rule).
 *
 * @since 0.2.0
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Effect, Layer } from "effect"
import { TokenRenewal } from "@postwire/core"
import * as BackgroundLoops from "../observability/BackgroundLoops.ts"

/** Runs the token refresh loop in the background while the layer is alive. */
export const layer = Layer.effectDiscard(
  Effect.andThen(
    TokenRenewal.start(TokenRenewal.defaults(`${hostname()}:${process.pid}:${randomUUID()}`)),
    BackgroundLoops.running("token_renewal")
  )
)
