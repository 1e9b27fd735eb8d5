/**
 * The error reference page, `/docs/errors`: every code with its anchor, status, retryability,
 * and both texts. Generated from the catalog, so it cannot drift.
 *
 * @since 0.1.0
 */
import { ErrorCatalog, errorCodes } from "@postwire/domain"

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const code = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, "<code>$1</code>")

/** Renders the page. */
export const errorReferenceHtml = (): string => {
  const rows = errorCodes
    .map((c) => {
      const e = ErrorCatalog[c]
      return `<section id="${c}" aria-labelledby="h-${c}">
  <h2 id="h-${c}"><a href="#${c}">${c}</a></h2>
  <dl>
    <dt>HTTP status</dt><dd>${e.status}</dd>
    <dt>Retryable</dt><dd>${e.retryable ? "yes" : "no"}</dd>
    <dt>When</dt><dd>${code(e.when)}</dd>
    <dt lang="en">Message (English)</dt><dd lang="en">${escapeHtml(e.en)}</dd>
    <dt lang="id">Pesan (Bahasa Indonesia)</dt><dd lang="id">${escapeHtml(e.id)}</dd>
  </dl>
</section>`
    })
    .join("\n")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postwire error reference</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
  section { border-top: 1px solid #ccc; padding: .5rem 0; }
  h2 { font-family: ui-monospace, monospace; font-size: 1.1rem; margin: .5rem 0; }
  h2 a { color: #0b57d0; }
  dl { display: grid; grid-template-columns: 12rem 1fr; gap: .25rem 1rem; margin: 0; }
  dt { font-weight: 600; }
  dd { margin: 0; }
  code, pre { background: #f3f3f3; padding: 0 .2rem; border-radius: 3px; }
  :target { background: #fff8d6; }
</style>
</head>
<body>
<h1>Error reference</h1>
<p>Every error has one shape:</p>
<pre>{ "error": { "code", "message", "message_id", "target_id"?, "field"?, "retryable", "docs" } }</pre>
<p><code>message</code> follows <code>Accept-Language</code> (<code>id</code> selects Indonesian);
<code>message_id</code> is always Indonesian. <code>docs</code> links to the entry below.</p>
${rows}
</body>
</html>`
}
