import { describe, expect, it } from "vitest"
import { type PlatformPlugin, Registry } from "@postwire/platforms"
import { notesPlugin } from "../../../test/platforms/plugin/FormPlugins.ts"

describe("a plugin's connect form, as the registry takes it", () => {
  // A form as a JavaScript plugin file may write it, unchecked by TypeScript.
  const withForm = (form: unknown): PlatformPlugin => {
    const plugin = notesPlugin("http://127.0.0.1:9")
    return { ...plugin, connect: { ...plugin.connect!, form: form as never } }
  }

  it("takes a usable form", () => {
    expect(Registry.make([notesPlugin("http://127.0.0.1:9")]).get("notes")?.connect?.form?.map((f) => f.name)).toEqual([
      "handle",
      "password"
    ])
  })

  it.each([
    ["not an array", { name: "handle" }, "`connect.form` must be an array of fields"],
    ["a bad name", [{ name: "Handle", label: "Handle", kind: "text" }], "`connect.form[0].name` must be 1 to 32 lowercase letters"],
    [
      "a name twice",
      [
        { name: "handle", label: "Handle", kind: "text" },
        { name: "handle", label: "Again", kind: "text" }
      ],
      'names the field "handle" twice'
    ],
    ["the reserved lang", [{ name: "lang", label: "Language", kind: "text" }], 'reserved "lang"'],
    ["no label", [{ name: "handle", label: " ", kind: "text" }], "`connect.form[0].label` must be a non-empty string"],
    ["an unknown kind", [{ name: "pin", label: "PIN", kind: "number" }], "`connect.form[0].kind` must be one of text, password, url"],
    ["a bad maxLength", [{ name: "pin", label: "PIN", kind: "text", maxLength: 0 }], "`connect.form[0].maxLength` must be a whole number"]
  ])("refuses %s, naming the plugin and the field", (_, form, message) => {
    expect(() => Registry.make([withForm(form)])).toThrow(message)
    expect(() => Registry.make([withForm(form)])).toThrow('"notes"')
  })
})
