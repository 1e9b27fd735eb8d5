import { Cause, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { StoreError } from "../src/store/StoreError.ts"

describe("StoreError", () => {
  it("says which operation failed and why, in its message and when printed", () => {
    const error = new StoreError({ operation: "insertPost", cause: new Error("Connection terminated unexpectedly\n    at Socket") })
    expect(error.message).toBe("insertPost: Connection terminated unexpectedly")
    expect(String(error)).toContain("insertPost: Connection terminated unexpectedly")
    const exit = Effect.runSyncExit(Effect.fail(error))
    expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("insertPost: Connection terminated unexpectedly")
  })

  it("reads a driver's error object and a bare string", () => {
    expect(new StoreError({ operation: "claim", cause: { code: "57P01", message: "terminating connection due to administrator command" } }).message).toBe(
      "claim: terminating connection due to administrator command"
    )
    expect(new StoreError({ operation: "claim", cause: "socket hang up" }).message).toBe("claim: socket hang up")
    expect(new StoreError({ operation: "claim", cause: new Error("") }).message).toBe("claim: Error")
  })
})
