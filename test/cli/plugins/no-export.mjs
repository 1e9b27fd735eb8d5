// Exports nothing Postwire can serve: `postwire serve --plugin` names the file and says so.
export const somethingElse = 1
