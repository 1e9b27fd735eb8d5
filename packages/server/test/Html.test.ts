import { describe, expect, it } from "vitest"
import { html, raw } from "../src/html/Html.ts"

describe("html", () => {
  it("escapes interpolated text, in content and in attributes", () => {
    const name = `<script>alert("x")</script> & 'y'`
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      "<p title=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>"
    )
  })

  it("keeps nested fragments and raw() as they are, escaping only once", () => {
    const inner = html`<b>${"a<b"}</b>`
    expect(html`<p>${inner}${raw("<br>")}</p>`.value).toBe("<p><b>a&lt;b</b><br></p>")
  })

  it("renders lists item by item and nothing for null, undefined and false", () => {
    expect(html`<ul>${["<1>", 2].map((i) => html`<li>${i}</li>`)}</ul>`.value).toBe("<ul><li>&lt;1&gt;</li><li>2</li></ul>")
    expect(html`[${null}${undefined}${false}${0}]`.value).toBe("[0]")
  })
})
