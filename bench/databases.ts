/**
 * What the seeded benches (`scale`, `analytics`) share: a PostgreSQL database of their own beside
 * the one `DATABASE_URL` names, and samples of two sides taken in turn.
 */
import { Effect, type Layer, ManagedRuntime } from "effect"

/**
 * A new database on the server of `url`, migrated by `migrate` (a store layer over that database:
 * building it runs the migrations), then `statements` run in it. `drop` removes it.
 */
export const aDatabaseOfItsOwn = async <A, E>(
  url: string,
  prefix: string,
  migrate: (url: string) => Layer.Layer<A, E>,
  statements: ReadonlyArray<string>
): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const { default: pg } = await import("pg")
  const name = `${prefix}_${process.pid}_${Date.now()}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const fresh = new URL(url)
  fresh.pathname = `/${name}`
  const migrating = ManagedRuntime.make(migrate(fresh.toString()))
  await migrating.runPromise(Effect.void)
  await migrating.dispose()
  const client = new pg.Client({ connectionString: fresh.toString() })
  await client.connect()
  for (const statement of statements) await client.query(statement)
  await client.end()
  return {
    url: fresh.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: url })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
    }
  }
}

/**
 * Times `large` then `small`, in turn, `warmUp + samples` times: the milliseconds each answered,
 * after the warm-up, per side.
 */
export const inTurn = async (
  samples: number,
  warmUp: number,
  large: () => Promise<number>,
  small: () => Promise<number>
): Promise<{ readonly large: Array<number>; readonly small: Array<number> }> => {
  const times = { large: [] as Array<number>, small: [] as Array<number> }
  for (let i = 0; i < warmUp + samples; i++) {
    const l = await large()
    const s = await small()
    if (i >= warmUp) {
      times.large.push(l)
      times.small.push(s)
    }
  }
  return times
}
