/**
 * Where a person may be sent after a decision or a connect: a workspace's allow-list of redirect
 * domains. The approval page and the connect links both take a `redirect_url` and check it here.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { ErrorDetail, PostwireError } from "@postwire/domain"
import type { WorkspaceRecord } from "../store/WorkspaceStore.ts"

/**
 * Whether `url` may follow a decision or a connect: https, no credentials, on one of `domains` or a
 * subdomain of one (`example.com` allows `example.com` and `app.example.com`, never
 * `badexample.com`).
 */
export const isAllowedRedirect = (url: string, domains: ReadonlyArray<string>): boolean => {
  if (url.length > 2048) return false
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== "https:" || parsed.username !== "" || parsed.password !== "") return false
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "")
  return domains.some((domain) => {
    const d = domain.toLowerCase().replace(/\.$/, "")
    return d !== "" && (host === d || host.endsWith(`.${d}`))
  })
}

/** `invalid_redirect_url` for a workspace, naming the domains it allows (or how to allow some). */
export const redirectRefusal = (workspace: WorkspaceRecord) =>
  new PostwireError({
    code: "invalid_redirect_url",
    field: "redirect_url",
    details: {
      detail:
        workspace.allowedRedirectDomains.length === 0
          ? ErrorDetail.reason("no_allowed_domains", { workspace: workspace.id })
          : ErrorDetail.reason("allowed_domains_are", { domains: workspace.allowedRedirectDomains.join(", ") })
    }
  })

/** Fails with `invalid_redirect_url` unless `url` is allowed for the workspace. */
export const checkRedirectUrl = (workspace: WorkspaceRecord, url: string | undefined) =>
  url === undefined || isAllowedRedirect(url, workspace.allowedRedirectDomains) ? Effect.void : Effect.fail(redirectRefusal(workspace))
