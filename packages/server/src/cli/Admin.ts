/**
 * `postwire admin <workspace|key|profile|account> create …`: the admin API from a terminal.
 *
 * @since 0.1.0
 */
import { parseArgs } from "node:util"

/** A usage or input problem; printed with the command's help. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

type Body = Record<string, unknown>

interface Command {
  readonly path: (workspace: string | undefined) => string
  readonly options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>
  readonly body: (values: Record<string, string | boolean | Array<string> | undefined>) => Body
  readonly needsWorkspace: boolean
  readonly usage: string
}

const list = (v: unknown): Array<string> =>
  (Array.isArray(v) ? v : typeof v === "string" ? [v] : []).flatMap((s: string) => s.split(",")).map((s) => s.trim()).filter(Boolean)

const int = (name: string, v: unknown): number | undefined => {
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got "${String(v)}"`)
  return n
}

const required = (name: string, v: unknown): string => {
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`)
  return v
}

const commands: Record<string, Command> = {
  workspace: {
    path: () => "/admin/v1/workspaces",
    options: { name: { type: "string" }, "allowed-redirect-domains": { type: "string", multiple: true } },
    body: (v) => ({
      name: required("name", v.name),
      ...(v["allowed-redirect-domains"] ? { allowed_redirect_domains: list(v["allowed-redirect-domains"]) } : {})
    }),
    needsWorkspace: false,
    usage: "postwire admin workspace create --name NAME [--allowed-redirect-domains a.com,b.com]"
  },
  key: {
    path: (w) => `/admin/v1/workspaces/${encodeURIComponent(w!)}/keys`,
    options: { kind: { type: "string" }, scopes: { type: "string", multiple: true } },
    body: (v) => ({ kind: required("kind", v.kind), scopes: list(v.scopes) }),
    needsWorkspace: true,
    usage:
      "postwire admin key create --workspace WS --kind test|live --scopes posts:read,posts:write,webhooks:read,webhooks:write,accounts:write"
  },
  profile: {
    path: (w) => `/admin/v1/workspaces/${encodeURIComponent(w!)}/profiles`,
    options: { name: { type: "string" } },
    body: (v) => ({ name: required("name", v.name) }),
    needsWorkspace: true,
    usage: "postwire admin profile create --workspace WS --name NAME"
  },
  account: {
    path: (w) => `/admin/v1/workspaces/${encodeURIComponent(w!)}/accounts`,
    options: {
      profile: { type: "string" },
      platform: { type: "string" },
      sandbox: { type: "boolean" },
      live: { type: "boolean" },
      handle: { type: "string" },
      "daily-quota": { type: "string" },
      "simulate-error": { type: "string" },
      "simulate-times": { type: "string" },
      "simulate-max-video-duration-sec": { type: "string" },
      "simulate-privacy-level-options": { type: "string", multiple: true }
    },
    body: (v) => {
      if (v.sandbox && v.live) throw new UsageError("--sandbox and --live cannot be combined")
      const simulate = {
        ...(v["simulate-error"] ? { error: v["simulate-error"] } : {}),
        ...(v["simulate-times"] ? { times: int("simulate-times", v["simulate-times"]) } : {}),
        ...(v["simulate-max-video-duration-sec"]
          ? { max_video_duration_sec: int("simulate-max-video-duration-sec", v["simulate-max-video-duration-sec"]) }
          : {}),
        ...(v["simulate-privacy-level-options"]
          ? { privacy_level_options: list(v["simulate-privacy-level-options"]) }
          : {})
      }
      return {
        profile_id: required("profile", v.profile),
        platform: required("platform", v.platform),
        sandbox: !v.live,
        ...(v.handle ? { handle: v.handle } : {}),
        ...(v["daily-quota"] ? { daily_quota: int("daily-quota", v["daily-quota"]) } : {}),
        ...(Object.keys(simulate).length > 0 ? { simulate } : {})
      }
    },
    needsWorkspace: true,
    usage:
      "postwire admin account create --workspace WS --profile PROF --platform shortvideo|photo|pages|textpost [--live] [--handle H] [--daily-quota N] [--simulate-error CODE --simulate-times N]"
  }
}

/** Help text of `postwire admin`. */
export const adminUsage = `Usage:
${Object.values(commands)
  .map((c) => `  ${c.usage} [--json]`)
  .join("\n")}

Common options:
  --url URL            server address (default http://localhost:$PORT or 8080)
  --admin-token TOKEN  admin token (default $POSTWIRE_ADMIN_TOKEN)
  --json               print the raw JSON response`

/** Runs `postwire admin …`; returns the exit code. */
export const runAdmin = async (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  out: (line: string) => void,
  fetchImpl: typeof fetch = fetch
): Promise<number> => {
  const [resource, verb, ...rest] = argv
  const command = resource === undefined ? undefined : commands[resource]
  if (command === undefined || verb !== "create") throw new UsageError(adminUsage)
  const { values } = parseArgs({
    args: rest,
    options: {
      ...command.options,
      workspace: { type: "string" },
      url: { type: "string" },
      "admin-token": { type: "string" },
      json: { type: "boolean" }
    },
    strict: true,
    allowPositionals: false
  })
  const v = values as Record<string, string | boolean | Array<string> | undefined>
  const workspace = command.needsWorkspace ? required("workspace", v.workspace) : undefined
  const token = (v["admin-token"] as string | undefined) ?? env.POSTWIRE_ADMIN_TOKEN
  if (!token) throw new UsageError("--admin-token or POSTWIRE_ADMIN_TOKEN is required")
  const base = ((v.url as string | undefined) ?? `http://localhost:${env.PORT ?? "8080"}`).replace(/\/$/, "")
  const response = await fetchImpl(base + command.path(workspace), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(command.body(v))
  })
  const text = await response.text()
  if (v.json) {
    out(text)
  } else if (response.ok) {
    const body = JSON.parse(text) as Record<string, string>
    out(Object.entries(body).map(([k, value]) => `${k}: ${value}`).join("\n"))
  } else {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string; field?: string } }
    out(`error ${response.status} ${body.error?.code ?? ""}: ${body.error?.message ?? text}`)
  }
  return response.ok ? 0 : 1
}
