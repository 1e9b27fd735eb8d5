import { describe, expect, it } from "vitest"
import { ConfigProblem, resolveSettings } from "../src/config/ServerConfig.ts"

describe("resolveSettings", () => {
  it("uses the documented defaults", () => {
    expect(resolveSettings({}, {})).toMatchObject({
      port: 8080,
      dataDir: "./.postwire",
      databaseUrl: undefined,
      role: "all",
      publicUrl: "http://localhost:8080",
      unsafeAllowLoopbackWebhooks: false,
      rateLimitPerKey: 120,
      rateLimitPostsCreate: 30,
      rateLimitPublic: 300,
      publishing: { concurrency: 128, accountConcurrency: 4, leaseMs: 60_000, pollMs: 1_000, shutdownGraceMs: 10_000 }
    })
  })

  it("lets a stopping worker give its targets back at once with a shutdown grace of 0", () => {
    expect(resolveSettings({}, { POSTWIRE_PUBLISH_SHUTDOWN_GRACE_MS: "0" }).publishing.shutdownGraceMs).toBe(0)
    expect(resolveSettings({}, { POSTWIRE_PUBLISH_SHUTDOWN_GRACE_MS: "2500" }).publishing.shutdownGraceMs).toBe(2_500)
  })

  it("prefers flags over the environment", () => {
    const s = resolveSettings({ port: "9000", role: "worker" }, { PORT: "7000", POSTWIRE_ROLE: "api" })
    expect(s.port).toBe(9000)
    expect(s.role).toBe("worker")
    expect(s.publicUrl).toBe("http://localhost:9000")
  })

  it.each([
    [{ port: "abc" }, {}, "--port"],
    [{ port: "70000" }, {}, "--port"],
    [{}, { PORT: "-1" }, "PORT"],
    [{ role: "boss" }, {}, "--role"],
    [{}, { DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{}, { POSTWIRE_PUBLIC_URL: "ftp://x" }, "POSTWIRE_PUBLIC_URL"],
    [{}, { POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS: "yes" }, "POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS"],
    [{}, { POSTWIRE_RATE_LIMIT_PER_KEY: "0" }, "POSTWIRE_RATE_LIMIT_PER_KEY"]
  ])("names the setting when %j %j is wrong", (flags, env, setting) => {
    expect(() => resolveSettings(flags, env)).toThrow(ConfigProblem)
    expect(() => resolveSettings(flags, env)).toThrow(setting)
  })

  it("names the environment variable, not the flag, when the bad value came from the environment", () => {
    expect(() => resolveSettings({}, { PORT: "70000" })).toThrow("Invalid configuration PORT: expected 1-65535, got 70000")
    expect(() => resolveSettings({}, { POSTWIRE_ROLE: "foo" })).toThrow("Invalid configuration POSTWIRE_ROLE")
    expect(() => resolveSettings({ role: "foo" }, {})).toThrow("Invalid configuration --role")
  })

  it("refuses ports that are not plain decimal numbers and flags given without a value", () => {
    for (const port of ["1e4", "0x50", "80.0"]) expect(() => resolveSettings({ port }, {})).toThrow(ConfigProblem)
    expect(() => resolveSettings({ port: "" }, {})).toThrow("Invalid configuration --port: expected a value")
    expect(() => resolveSettings({ dataDir: "" }, {})).toThrow("Invalid configuration --data-dir")
    expect(() => resolveSettings({ host: " " }, {})).toThrow("Invalid configuration --host")
  })

  it("trims the admin token and refuses one with spaces inside", () => {
    const token = "secret-token-0123456789abcdef-0123"
    expect(resolveSettings({}, { POSTWIRE_ADMIN_TOKEN: `  ${token}\n` }).adminToken).toBe(token)
    expect(() => resolveSettings({}, { POSTWIRE_ADMIN_TOKEN: "two words" })).toThrow("Invalid configuration POSTWIRE_ADMIN_TOKEN")
  })

  it("refuses an admin token shorter than 32 characters with one line naming the setting", () => {
    expect(() => resolveSettings({}, { POSTWIRE_ADMIN_TOKEN: "a" })).toThrow(
      /^Invalid configuration POSTWIRE_ADMIN_TOKEN: expected at least 32 characters, got 1 [^\n]*$/
    )
    expect(() => resolveSettings({}, { POSTWIRE_ADMIN_TOKEN: "x".repeat(31) })).toThrow("expected at least 32 characters")
    expect(resolveSettings({}, { POSTWIRE_ADMIN_TOKEN: "x".repeat(32) }).adminToken).toBe("x".repeat(32))
  })

  it("reads the trusted proxies as addresses and CIDRs, IPv4 and IPv6, and refuses anything else", () => {
    const proxies = resolveSettings({}, { POSTWIRE_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.7,fd00::/8" }).trustedProxies!
    expect(proxies.trusts("10.20.30.40")).toBe(true)
    expect(proxies.trusts("192.168.1.7")).toBe(true)
    expect(proxies.trusts("192.168.1.8")).toBe(false)
    expect(proxies.trusts("fd12::1")).toBe(true)
    expect(proxies.trusts("2001:db8::1")).toBe(false)
    expect(resolveSettings({ trustedProxies: "::1" }, { POSTWIRE_TRUSTED_PROXIES: "10.0.0.1" }).trustedProxies!.trusts("::1")).toBe(true)
    expect(resolveSettings({}, {}).trustedProxies!.trusts("127.0.0.1")).toBe(false)
    expect(() => resolveSettings({}, { POSTWIRE_TRUSTED_PROXIES: "proxy.local" })).toThrow("Invalid configuration POSTWIRE_TRUSTED_PROXIES")
    expect(() => resolveSettings({}, { POSTWIRE_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow("Invalid configuration POSTWIRE_TRUSTED_PROXIES")
    expect(() => resolveSettings({ trustedProxies: "" }, {})).toThrow("Invalid configuration --trusted-proxies")
  })

  it("reads the connect settings: app credentials, hosts kept exactly as written, and the Meta secret under either name", () => {
    const s = resolveSettings(
      {},
      {
        POSTWIRE_TIKTOK_CLIENT_KEY: " aw123 ",
        POSTWIRE_TIKTOK_CLIENT_SECRET: "tiktok-secret",
        POSTWIRE_TIKTOK_AUTHORIZE_URL: "http://127.0.0.1:4000/v2/auth/authorize/",
        POSTWIRE_INSTAGRAM_APP_ID: "990011",
        POSTWIRE_META_APP_ID: "556677",
        POSTWIRE_META_APP_SECRET: "meta-secret",
        POSTWIRE_THREADS_REFRESH_URL: "none"
      }
    )
    expect(s.connect.shortvideo).toMatchObject({ clientKey: "aw123", authorizeUrl: "http://127.0.0.1:4000/v2/auth/authorize/" })
    expect(String((s.connect.shortvideo as Record<string, unknown>).clientSecret)).not.toContain("tiktok-secret")
    expect(s.connect.photo).toMatchObject({ appId: "990011" })
    expect((s.connect.pages as Record<string, unknown>).appId).toBe("556677")
    expect((s.connect.pages as Record<string, unknown>).appSecret).toBeDefined()
    expect((s.platforms.pages as Record<string, unknown>).appSecret).toBeDefined()
    expect(s.connect.textpost).not.toHaveProperty("refreshUrl")
    expect(() => resolveSettings({}, { POSTWIRE_FACEBOOK_AUTHORIZE_URL: "ftp://x" })).toThrow("POSTWIRE_FACEBOOK_AUTHORIZE_URL")
  })
})
