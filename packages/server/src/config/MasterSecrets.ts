/**
 * The master secrets an operator gives: `POSTWIRE_SECRET` (comma-separated, newest first) or
 * `POSTWIRE_SECRET_FILE` (one per line, newest first), and the file the embedded default keeps
 * in its data directory in the same format. Format and strength: docs/configuration.md.
 *
 * @since 0.2.0
 */
import { randomBytes } from "node:crypto"

/** Fewest characters of a master secret. */
export const minimumLength = 32

/** Most characters of a master secret. */
export const maximumLength = 1024

/** Fewest different characters of a master secret (refuses `aaaa…` and `abab…`). */
export const minimumDistinct = 16

/** A new strong master secret: 32 random bytes, base64url (43 characters). */
export const generate = (): string => randomBytes(32).toString("base64url")

/** Why a list of secrets was refused; the text never contains a secret. */
export class MalformedSecrets extends Error {
  constructor(readonly detail: string) {
    super(detail)
    this.name = "MalformedSecrets"
  }
}

const problemOf = (secret: string): string | undefined => {
  if (secret.length < minimumLength) return `is too short (${secret.length} characters, at least ${minimumLength})`
  if (secret.length > maximumLength) return `is too long (${secret.length} characters, at most ${maximumLength})`
  if (!/^[\x21-\x2b\x2d-\x7e]+$/.test(secret)) return "has a character outside printable ASCII, a space or a comma"
  if (new Set(secret).size < minimumDistinct) return `is too weak (fewer than ${minimumDistinct} different characters)`
  return undefined
}

const check = (secrets: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (secrets.length === 0) throw new MalformedSecrets("holds no secret")
  secrets.forEach((secret, index) => {
    const problem = problemOf(secret)
    const which = secrets.length === 1 ? "the secret" : `secret ${index + 1} of ${secrets.length}`
    if (problem !== undefined) throw new MalformedSecrets(`${which} ${problem}; generate one with \`postwire secrets generate\``)
    if (secrets.indexOf(secret) !== index) throw new MalformedSecrets(`${which} is listed twice`)
  })
  return secrets
}

/** Reads `POSTWIRE_SECRET`: secrets separated by commas, newest first; spaces around each are ignored. */
export const parseList = (value: string): ReadonlyArray<string> => check(value.split(",").map((part) => part.trim()))

/**
 * Reads a secret file: one secret per line, newest first; blank lines and lines starting with
 * `#` are ignored, as are spaces at either end of a line.
 */
export const parseFile = (text: string): ReadonlyArray<string> =>
  check(
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"))
  )

/** The text of a secret file holding `secrets`, newest first. */
export const formatFile = (secrets: ReadonlyArray<string>): string =>
  `# Postwire master secrets, newest first (docs/operations.md). Keep this file private and back it up.\n${secrets.join("\n")}\n`
