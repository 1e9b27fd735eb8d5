/**
 * A plugin's settings completed with what a deployment gives: the plugin's defaults, overridden
 * by every given value that is not `undefined`, secrets given as plain strings redacted.
 *
 * @internal
 */
import { Redacted } from "effect"
import type { SettingsPart } from "../Plugin.ts"

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** The complete settings of one side of a plugin. */
export const complete = <S>(part: SettingsPart<S>, given: unknown): S => {
  const out: Record<string, unknown> = { ...(part.defaults as object) }
  if (isRecord(given)) {
    const secrets: ReadonlyArray<string> = part.secrets ?? []
    for (const [key, value] of Object.entries(given)) {
      if (value === undefined) continue
      out[key] = secrets.includes(key) && typeof value === "string" ? Redacted.make(value) : value
    }
  }
  return out as S
}

/** What a deployment gives for the platform `name` in a router's options. */
export const given = (options: object, name: string): unknown => (options as Record<string, unknown>)[name]
