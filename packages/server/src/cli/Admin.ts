/**
 * `postwire admin <resource> <verb> …`: the admin API from a terminal. Workspaces, keys,
 * profiles and accounts can be created and listed; workspaces updated; keys revoked.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { builtinPlatforms } from "@postwire/domain"

/** A usage or input problem; printed with the command's help. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

type Values = Record<string, string | boolean | Array<string> | undefined>
type Row = Record<string, unknown>

interface Command {
  readonly method: "GET" | "POST" | "PATCH"
  readonly path: (workspace: string, values: Values) => string
  readonly options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>
  readonly body?: (values: Values) => Row
  /** Lists: the columns printed, one line per item (every page is fetched). */
  readonly columns?: ReadonlyArray<string>
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

/** The platform credentials of a live account, from a JSON file (kept out of the shell's history). */
const credentialsFrom = (file: string): Row => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    throw new UsageError(`--credentials-file ${file} cannot be read: ${(error as Error).message}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new UsageError(`--credentials-file ${file} must hold a JSON object, e.g. {"access_token": "…"}; it is not JSON`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--credentials-file ${file} must hold a JSON object, e.g. {"access_token": "…"}`)
  }
  return value as Row
}

const ws = (w: string) => `/admin/v1/workspaces/${encodeURIComponent(w)}`

const commands: Record<string, Record<string, Command>> = {
  workspace: {
    create: {
      method: "POST",
      path: () => "/admin/v1/workspaces",
      options: { name: { type: "string" }, "allowed-redirect-domains": { type: "string", multiple: true } },
      body: (v) => ({
        name: required("name", v.name),
        ...(v["allowed-redirect-domains"] ? { allowed_redirect_domains: list(v["allowed-redirect-domains"]) } : {})
      }),
      needsWorkspace: false,
      usage: "postwire admin workspace create --name NAME [--allowed-redirect-domains a.com,b.com]"
    },
    list: {
      method: "GET",
      path: () => "/admin/v1/workspaces",
      options: {},
      columns: ["id", "name", "created_at"],
      needsWorkspace: false,
      usage: "postwire admin workspace list"
    },
    get: {
      method: "GET",
      path: (w) => ws(w),
      options: {},
      needsWorkspace: true,
      usage: "postwire admin workspace get --workspace WS"
    },
    update: {
      method: "PATCH",
      path: (w) => ws(w),
      options: { name: { type: "string" }, "allowed-redirect-domains": { type: "string", multiple: true } },
      body: (v) => {
        if (v.name === undefined && v["allowed-redirect-domains"] === undefined) {
          throw new UsageError("give --name, --allowed-redirect-domains, or both")
        }
        return {
          ...(v.name === undefined ? {} : { name: v.name }),
          // The whole list; `--allowed-redirect-domains ""` empties it.
          ...(v["allowed-redirect-domains"] === undefined ? {} : { allowed_redirect_domains: list(v["allowed-redirect-domains"]) })
        }
      },
      needsWorkspace: true,
      usage: "postwire admin workspace update --workspace WS [--name NAME] [--allowed-redirect-domains a.com,b.com]"
    }
  },
  key: {
    create: {
      method: "POST",
      path: (w) => `${ws(w)}/keys`,
      options: { kind: { type: "string" }, scopes: { type: "string", multiple: true }, "approval-links": { type: "string" } },
      body: (v) => ({
        kind: required("kind", v.kind),
        scopes: list(v.scopes),
        // `hidden` for agents and integrations: the key never sees a link that approves a post.
        ...(v["approval-links"] === undefined ? {} : { approval_links: v["approval-links"] })
      }),
      needsWorkspace: true,
      usage:
        "postwire admin key create --workspace WS --kind test|live --scopes posts:read,posts:write,webhooks:read,webhooks:write,accounts:write,comments:write,analytics:read [--approval-links shown|hidden]"
    },
    list: {
      method: "GET",
      path: (w) => `${ws(w)}/keys`,
      options: {},
      columns: ["id", "kind", "last4", "scopes", "approval_links", "created_at", "revoked_at"],
      needsWorkspace: true,
      usage: "postwire admin key list --workspace WS"
    },
    revoke: {
      method: "POST",
      path: (w, v) => `${ws(w)}/keys/${encodeURIComponent(required("key", v.key))}/revoke`,
      options: { key: { type: "string" } },
      needsWorkspace: true,
      usage: "postwire admin key revoke --workspace WS --key KEY_ID"
    }
  },
  profile: {
    create: {
      method: "POST",
      path: (w) => `${ws(w)}/profiles`,
      options: { name: { type: "string" } },
      body: (v) => ({ name: required("name", v.name) }),
      needsWorkspace: true,
      usage: "postwire admin profile create --workspace WS --name NAME"
    },
    list: {
      method: "GET",
      path: (w) => `${ws(w)}/profiles?limit=100`,
      options: {},
      columns: ["id", "name", "created_at"],
      needsWorkspace: true,
      usage: "postwire admin profile list --workspace WS"
    }
  },
  account: {
    create: {
      method: "POST",
      path: (w) => `${ws(w)}/accounts`,
      options: {
        profile: { type: "string" },
        platform: { type: "string" },
        sandbox: { type: "boolean" },
        live: { type: "boolean" },
        handle: { type: "string" },
        "external-id": { type: "string" },
        "credentials-file": { type: "string" },
        "daily-quota": { type: "string" },
        "simulate-error": { type: "string" },
        "simulate-times": { type: "string" },
        "simulate-max-video-duration-sec": { type: "string" },
        "simulate-privacy-level-options": { type: "string", multiple: true }
      },
      body: (v) => {
        if (v.sandbox && v.live) throw new UsageError("--sandbox and --live cannot be combined")
        if (!v.live && (v["credentials-file"] || v["external-id"])) {
          throw new UsageError("--credentials-file and --external-id are for a live account: add --live")
        }
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
          ...(v["external-id"] ? { external_id: v["external-id"] } : {}),
          ...(typeof v["credentials-file"] === "string" ? { credentials: credentialsFrom(v["credentials-file"]) } : {}),
          ...(v["daily-quota"] ? { daily_quota: int("daily-quota", v["daily-quota"]) } : {}),
          ...(Object.keys(simulate).length > 0 ? { simulate } : {})
        }
      },
      needsWorkspace: true,
      usage:
        `postwire admin account create --workspace WS --profile PROF --platform ${builtinPlatforms.join("|")}|<plugin> [--handle H] [--daily-quota N]\n` +
        "      [--live --external-id ID --credentials-file creds.json] [--simulate-error CODE --simulate-times N]"
    },
    list: {
      method: "GET",
      path: (w, v) =>
        `${ws(w)}/accounts?limit=100${v.profile ? `&profile_id=${encodeURIComponent(String(v.profile))}` : ""}${
          v.platform ? `&platform=${encodeURIComponent(String(v.platform))}` : ""
        }`,
      options: { profile: { type: "string" }, platform: { type: "string" } },
      columns: ["id", "platform", "handle", "sandbox", "status", "profile_id"],
      needsWorkspace: true,
      usage: "postwire admin account list --workspace WS [--profile PROF] [--platform P]"
    }
  }
}

const commonOptions = `Common options:
  --url URL            server address (default http://localhost:$PORT or 8080)
  --admin-token TOKEN  admin token (default $POSTWIRE_ADMIN_TOKEN)
  --json               print the raw JSON response
  --help               this help`

/** Help text of `postwire admin`, or of one resource's commands. */
export const adminUsage = (resource?: string): string => {
  const chosen = resource !== undefined && commands[resource] ? [commands[resource]] : Object.values(commands)
  return `Usage:
${chosen
  .flatMap((verbs) => Object.values(verbs))
  .map((c) => `  ${c.usage} [--json]`)
  .join("\n")}

${commonOptions}`
}

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help"

const cell = (value: unknown): string =>
  value === null || value === undefined ? "-" : Array.isArray(value) ? value.join(",") : String(value)

/** Runs `postwire admin …`; returns the exit code. */
export const runAdmin = async (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  out: (line: string) => void,
  fetchImpl: typeof fetch = fetch
): Promise<number> => {
  const [resource, verb, ...rest] = argv
  if (resource === undefined || isHelp(resource)) {
    out(adminUsage())
    return 0
  }
  const verbs = commands[resource]
  if (verbs === undefined) throw new UsageError(`Unknown resource "${resource}".\n\n${adminUsage()}`)
  if (verb === undefined || isHelp(verb)) {
    out(adminUsage(resource))
    return 0
  }
  const command = verbs[verb]
  if (command === undefined) {
    throw new UsageError(`Unknown command "${resource} ${verb}": use ${Object.keys(verbs).join(" or ")}.\n\n${adminUsage(resource)}`)
  }
  if (rest.some(isHelp)) {
    out(`Usage:\n  ${command.usage} [--json]\n\n${commonOptions}`)
    return 0
  }
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
  const v = values as Values
  const workspace = command.needsWorkspace ? required("workspace", v.workspace) : ""
  const token = (v["admin-token"] as string | undefined) ?? env.POSTWIRE_ADMIN_TOKEN
  if (!token) throw new UsageError("--admin-token or POSTWIRE_ADMIN_TOKEN is required")
  const base = ((v.url as string | undefined) ?? `http://localhost:${env.PORT || "8080"}`).replace(/\/$/, "")
  const body = command.body?.(v)
  /** The answer's status and text, or `undefined` (after saying so) when no server answered. */
  const request = async (path: string) => {
    try {
      const response = await fetchImpl(base + path, {
        method: command.method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { ok: response.ok, status: response.status, text: await response.text() }
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } }).cause?.code
      out(`Postwire server not reachable at ${base}${typeof code === "string" ? ` (${code})` : ""}.\nStart it, or point to it with --url.`)
      return undefined
    }
  }

  /** The parsed JSON of a successful answer, or `undefined` (after saying so) when it is not JSON. */
  const parse = <A>(status: number, text: string): A | undefined => {
    try {
      return JSON.parse(text) as A
    } catch {
      out(`The server at ${base} answered HTTP ${status} with something that is not Postwire's JSON.\nCheck that --url points to a Postwire server.`)
      return undefined
    }
  }

  const fail = (status: number, text: string) => {
    let error: { code?: string; message?: string } | undefined
    try {
      error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error
    } catch {
      out(`The server at ${base} answered HTTP ${status} with something that is not Postwire's JSON.\nCheck that --url points to a Postwire server.`)
      return 1
    }
    out(`error ${status} ${error?.code ?? ""}: ${error?.message ?? text}`)
    return 1
  }

  const isJson = (text: string) => {
    try {
      JSON.parse(text)
      return true
    } catch {
      return false
    }
  }

  const answerFailure = (status: number, text: string) => {
    if (!v.json || !isJson(text)) return fail(status, text)
    out(text)
    return 1
  }

  if (command.columns === undefined) {
    const response = await request(command.path(workspace, v))
    if (response === undefined) return 1
    if (!response.ok) return answerFailure(response.status, response.text)
    const row = parse<Row>(response.status, response.text)
    if (row === undefined) return 1
    if (v.json) out(response.text)
    else out(Object.entries(row).map(([k, value]) => `${k}: ${cell(value)}`).join("\n"))
    return 0
  }

  // A list: every page, one line per item.
  const items: Array<Row> = []
  let path = command.path(workspace, v)
  for (;;) {
    const response = await request(path)
    if (response === undefined) return 1
    if (!response.ok) return answerFailure(response.status, response.text)
    const page = parse<{ data?: Array<Row>; cursor?: { next: string | null; has_more: boolean } }>(response.status, response.text)
    if (page === undefined) return 1
    if (!Array.isArray(page.data)) {
      out(`The server at ${base} answered HTTP ${response.status} with JSON that is not a Postwire list.\nCheck that --url points to a Postwire server.`)
      return 1
    }
    items.push(...page.data)
    if (!page.cursor?.has_more || page.cursor.next === null) break
    path = `${command.path(workspace, v)}&cursor=${encodeURIComponent(page.cursor.next)}`
  }
  if (v.json) {
    out(JSON.stringify({ data: items }))
    return 0
  }
  if (items.length === 0) {
    out(`No ${resource}s.`)
    return 0
  }
  const columns = command.columns
  const widths = columns.map((c) => Math.max(c.length, ...items.map((item) => cell(item[c]).length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  out(line(columns))
  for (const item of items) out(line(columns.map((c) => cell(item[c]))))
  return 0
}
