// A plugin without rules: `postwire serve --plugin` names the file and what is missing.
export const plugin = { name: "broken", displayName: "Broken" }
