import { Effect, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { layerPostgres } from "@postwire/store-sql"
import * as ThreadsFake from "/work/main/test/platforms/fakes/ThreadsFake.ts"
const t0 = Date.now()
await Effect.runPromise(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE SCHEMA pw_dbg_1`)
  }).pipe(Effect.provide(layerPostgres(process.env.DATABASE_URL!, { maxConnections: 1 })))
)
console.log("schema", Date.now() - t0)
const scope = Effect.runSync(Scope.make())
const fake = await Effect.runPromise(ThreadsFake.make().pipe(Scope.provide(scope)))
console.log("fake", fake.url, Date.now() - t0)
