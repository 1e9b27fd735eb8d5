/**
 * The error reference page, `/docs/errors`: an index of every code (status, retryability, where it
 * comes from), then each code with its anchor, status, retryability, and both texts. Generated
 * from the catalog, so it cannot drift.
 *
 * @since 0.1.0
 */
import { ErrorCatalog, type ErrorCode, errorCodes } from "@postwire/domain"
import { html, type SafeHtml } from "../html/Html.ts"

/** Text with its `backticked` parts as code. */
const withCode = (text: string): ReadonlyArray<SafeHtml | string> =>
  text.split("`").map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))

const sources: Readonly<Record<(typeof ErrorCatalog)[ErrorCode]["kind"], string>> = {
  generic: "Generic",
  request: "Request",
  platform: "Platform"
}

const indexRow = (c: ErrorCode): SafeHtml => {
  const e = ErrorCatalog[c]
  return html`<tr>
  <th scope="row"><a href="#${c}"><code>${c}</code></a></th>
  <td>${e.status}</td>
  <td>${e.retryable ? "yes" : "no"}</td>
  <td>${sources[e.kind]}</td>
</tr>`
}

const entry = (c: ErrorCode): SafeHtml => {
  const e = ErrorCatalog[c]
  return html`<section id="${c}" aria-labelledby="h-${c}">
  <h2 id="h-${c}"><a href="#${c}">${c}</a></h2>
  <dl>
    <dt>HTTP status</dt><dd>${e.status}</dd>
    <dt>Retryable</dt><dd>${e.retryable ? "yes" : "no"}</dd>
    <dt>When</dt><dd>${withCode(e.when)}</dd>
    <dt lang="en">Message (English)</dt><dd lang="en">${e.en}</dd>
    <dt lang="id">Pesan (Bahasa Indonesia)</dt><dd lang="id">${e.indonesian}</dd>
  </dl>
  <p class="back"><a href="#index">All codes</a></p>
</section>`
}

/** Renders the page. */
export const errorReferenceHtml = (): string =>
  html`<!doctype html>
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
  table { border-collapse: collapse; width: 100%; margin: 1rem 0 2rem; }
  caption { text-align: left; font-weight: 600; padding-bottom: .5rem; }
  th, td { text-align: left; padding: .25rem .75rem .25rem 0; border-bottom: 1px solid #e5e5e5; }
  thead th { border-bottom: 2px solid #ccc; }
  tbody th { font-weight: normal; }
  a { color: #0b57d0; }
  .back { margin: .25rem 0 0; font-size: .9rem; }
  :target { background: #fff8d6; }
</style>
</head>
<body>
<h1>Error reference</h1>
<p>Every error has one shape:</p>
<pre>{ "error": { "code", "message", "message_id", "target_id"?, "field"?, "retryable", "docs", "platform_code"?, "issues"? } }</pre>
<p><code>message</code> follows <code>Accept-Language</code> (<code>id</code> selects Indonesian);
<code>message_id</code> is always Indonesian. <code>docs</code> links to the entry below. Platform codes
are what a failed target's <code>error</code> carries, with the platform's own code in
<code>platform_code</code>; a 422 lists every problem in <code>issues</code>.</p>
<table id="index">
<caption>All codes</caption>
<thead><tr><th scope="col">Code</th><th scope="col">HTTP status</th><th scope="col">Retryable</th><th scope="col">Source</th></tr></thead>
<tbody>
${errorCodes.map(indexRow)}
</tbody>
</table>
${errorCodes.map(entry)}
</body>
</html>`.value
