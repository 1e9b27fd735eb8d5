/**
 * What an Indonesian message must not hold: a word of the English detail vocabulary (outside its
 * identifiers). Shared by the catalogue's tests and the platform plugins' reasons' tests.
 */

/** Words of the English detail vocabulary that have no place in an Indonesian message. */
const englishWords = [
  "must", "the", "required", "expected", "known", "field", "after", "appears", "twice", "is", "not", "a", "an", "of",
  "to", "with", "could", "cannot", "no", "be", "only", "and", "or", "at", "least", "most", "has", "was", "does",
  "it", "its", "needs", "takes", "lasts", "resolves", "answered", "within", "belongs", "rejected", "refused",
  "unsupported", "accepted", "cancelled", "simulated", "failure", "platform's", "empty", "malformed",
  "starting", "address", "longer", "seconds", "days", "range", "waits", "approval", "account", "profile"
]
export const englishWord = new RegExp(`(^|[^\\p{L}_.-])(${englishWords.join("|")})(?=$|[^\\p{L}_.-])`, "iu")

/** A message without its identifiers: `code spans` and "quoted values" are the same in every language. */
export const prose = (message: string) => message.replace(/`[^`]*`|"[^"]*"/g, "")
