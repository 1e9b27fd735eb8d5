import { Effect, Logger, References } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { describe, expect, it } from "vitest"
import { loggablePath, requestLog } from "../src/http/RequestLog.ts"

interface Line {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/** Runs `app` for a request to `url` through the request log and returns what it wrote. */
const logOf = async (
  url: string,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> = Effect.succeed(HttpServerResponse.empty({ status: 204 }))
) => {
  const lines: Array<Line> = []
  const collector = Logger.make((options) => {
    lines.push({
      level: options.logLevel,
      message: options.message,
      annotations: { ...options.fiber.getRef(References.CurrentLogAnnotations) }
    })
  })
  await Effect.runPromise(
    requestLog(app).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request(`http://localhost${url}`))),
      Effect.exit,
      Effect.provide(Logger.layer([collector]))
    )
  )
  return lines
}

describe("the request log", () => {
  it.each([
    ["/approve/tok_abcdefghijklmnop?lang=id", "/approve/{token}"],
    ["/approve/tok_abcdefghijklmnop/media/med_1", "/approve/{token}/media/med_1"],
    ["/v1/approvals/tok_abcdefghijklmnop/decision", "/v1/approvals/{token}/decision"],
    ["/media-files/ws_1/med_1?exp=1&sig=deadbeef", "/media-files/ws_1/med_1"],
    ["/v1/posts/post_1#x", "/v1/posts/post_1"],
    ["/connect/Jx2abcdefghijklmnop?lang=id", "/connect/{token}"],
    ["/connect/Jx2abcdefghijklmnop/start", "/connect/{token}/start"],
    ["/connect/callback/shortvideo?code=secret-code&state=secret-state", "/connect/callback/shortvideo"],
    ["/connect/sandbox/authorize?state=s", "/connect/sandbox/authorize"],
    ["/connect/deauthorize/meta", "/connect/deauthorize/meta"],
    ["/v1/posts", "/v1/posts"]
  ])("writes %s as %s", (url, expected) => {
    expect(loggablePath(url)).toBe(expected)
  })

  it("writes one line per response with its request id, method, path and status, and no token", async () => {
    const lines = await logOf("/approve/secret-token-value")
    expect(lines).toHaveLength(1)
    expect(lines[0]?.annotations).toMatchObject({ method: "GET", path: "/approve/{token}", route: "unmatched", status: 204 })
    expect(lines[0]?.annotations.request_id).toMatch(/^req_[0-9a-z]{26}$/)
    expect(JSON.stringify(lines)).not.toContain("secret-token-value")
  })

  it("logs a failure as an error with the status it was answered with", async () => {
    const lines = await logOf("/v1/posts", Effect.die(new Error("boom")))
    expect(lines).toHaveLength(1)
    expect(lines[0]?.level).toBe("Error")
    expect(lines[0]?.annotations).toMatchObject({ status: 500, path: "/v1/posts" })
  })
})
