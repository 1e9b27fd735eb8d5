/**
 * The approval page's stylesheet and its small inline script, as trusted markup: both are sent
 * with the nonce of the response's Content-Security-Policy.
 *
 * @since 0.1.0
 */

/** The stylesheet of the approval page, shared by the connect pages. */
export const styles = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --accent: #0b57d0;
  --ok: #0b6b3a; --bad: #a4161a; --bg: #ffffff; --soft: #f4f5f7; }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; justify-content: space-between; align-items: center;
  padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; }
.top ul { display: flex; gap: .75rem; list-style: none; margin: 0; padding: 0; }
.top a[aria-current] { color: var(--ink); font-weight: 700; text-decoration: none; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 1rem 0 .5rem; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 .5rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.lead, .muted { color: var(--muted); }
/* Names people chose are isolated: a bidi control in one cannot reorder the sentence around it. */
.creator strong { unicode-bidi: isolate; }
.caption { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: .75rem 1rem; border-radius: 6px; margin: 0; }
.media { list-style: none; padding: 0; margin: 0; display: grid; gap: .75rem; }
.media img, .media video { display: block; max-width: 100%; max-height: 70vh; border-radius: 6px; background: #000; }
.media img { width: auto; height: auto; object-fit: contain; }
.targets { list-style: none; padding: 0; margin: 0; }
.targets li { display: flex; flex-wrap: wrap; gap: .25rem .75rem; padding: .5rem 0; border-bottom: 1px solid var(--line); }
.platform { font-weight: 600; }
.status { margin-left: auto; color: var(--muted); }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem 1rem; margin: 1.25rem 0; }
legend { font-weight: 700; padding: 0 .25rem; }
fieldset fieldset { margin: .75rem 0 0; }
fieldset fieldset legend { font-weight: 600; }
.field { margin: .9rem 0; }
label { font-weight: 600; }
select, textarea { display: block; width: 100%; margin-top: .3rem; font: inherit; color: var(--ink); background: var(--bg);
  padding: .6rem; border: 2px solid #6b6b6b; border-radius: 6px; }
textarea { min-height: 5rem; }
.check { display: flex; gap: .6rem; align-items: flex-start; margin: .6rem 0; }
.check input { width: 1.35rem; height: 1.35rem; margin: .15rem 0 0; flex: none; accent-color: var(--accent); }
.check label { font-weight: 500; }
.check.off label, .check.off .hint { color: #5f5f5f; }
.hint { display: block; font-size: .92rem; color: var(--muted); font-weight: 400; }
.creator { margin: .25rem 0 .5rem; }
.problem-text { color: var(--bad); font-weight: 600; margin: .25rem 0 0; }
[aria-invalid="true"] { border-color: var(--bad); }
.summary { border: 3px solid var(--bad); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
.summary h2 { margin-top: 0; color: var(--bad); }
.notice { border-left: 4px solid var(--bad); background: #fdf1f1; padding: .6rem .9rem; border-radius: 4px; }
.declaration { background: var(--soft); padding: .75rem 1rem; border-radius: 6px; }
.declaration p { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1rem; }
button { font: inherit; font-weight: 700; padding: .75rem 1.5rem; border-radius: 6px; border: 2px solid transparent; cursor: pointer; min-width: 8rem; }
button.approve { background: var(--ok); color: #fff; }
button.reject { background: #fff; color: var(--bad); border-color: var(--bad); }
button:disabled { background: #d9d9d9; color: #4a4a4a; cursor: not-allowed; }
.result { border-left: 6px solid var(--ok); padding: .25rem 1rem; }
.result.rejected, .result.problem { border-left-color: var(--bad); }
footer { text-align: center; color: var(--muted); font-size: .85rem; padding: 1rem; }
[hidden] { display: none !important; }
`


/** Keeps the consent forms honest while the person chooses; the server checks everything again. */
export const script = `
(function () {
  var forms = document.querySelectorAll("[data-consent]");
  var declaration = document.querySelector("input[name=declaration]");
  function update() {
    var anyBranded = false;
    forms.forEach(function (form) {
      var disclose = form.querySelector("[data-disclose]");
      var options = form.querySelector("[data-brands]");
      var branded = form.querySelector("[data-branded]");
      var privacy = form.querySelector("select");
      var selfOnly = privacy && privacy.querySelector("option[value=SELF_ONLY]");
      options.hidden = !disclose.checked;
      var isBranded = disclose.checked && branded.checked;
      anyBranded = anyBranded || isBranded;
      if (selfOnly) {
        selfOnly.disabled = isBranded;
        if (isBranded && privacy.value === "SELF_ONLY") privacy.value = "";
      }
      form.querySelector("[data-private-note]").hidden = !(isBranded && selfOnly);
    });
    document.querySelectorAll("[data-declaration]").forEach(function (p) {
      p.hidden = p.getAttribute("data-declaration") !== (anyBranded ? "branded" : "music");
    });
    if (declaration) declaration.value = anyBranded ? "branded" : "music";
  }
  document.addEventListener("change", update);
  update();
  var summary = document.getElementById("problems");
  if (summary) summary.focus();
})();
`
