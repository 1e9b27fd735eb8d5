/**
 * Two instances on one PostgreSQL share media through an S3-compatible bucket: parts of one
 * upload arrive at either instance, either completes it, and the signed media address (what a
 * platform fetches) answered by the other instance leads to the bytes in the bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Keyring, MediaUrls } from "@postwire/core"
import { call } from "../support/Http.ts"
import { aLargeMp4, sendPart } from "../support/LargeMedia.ts"
import { startS3Server, type TestS3Server } from "../support/S3Server.ts"
import { aDatabase, backends, startServer, type TestDatabase, type TestServer } from "../support/TestServer.ts"

const MiB = 1024 * 1024

describe.runIf(backends().includes("postgres"))("two instances on one PostgreSQL with an S3 bucket", () => {
  let s3: TestS3Server
  let database: TestDatabase
  let first: TestServer
  let second: TestServer

  beforeAll(async () => {
    s3 = await startS3Server()
    database = await aDatabase("postgres")
    const env = { POSTWIRE_MEDIA_S3_URL: s3.url, POSTWIRE_RATE_LIMIT_PER_KEY: "100000" }
    first = await startServer("postgres", env, { database })
    second = await startServer("postgres", env, { database })
  })
  afterAll(async () => {
    await first?.stop()
    await second?.stop()
    await database?.drop()
    await s3?.stop()
  })

  it("takes the parts of one upload at either instance, and serves the media from the bucket at the other", async () => {
    const file = aLargeMp4(20 * MiB, { durationSeconds: 14, codec: "avc1" })
    const started = await call(first.baseUrl, "POST", "/v1/media/uploads", {
      key: first.testKey,
      body: { filename: "shared.mp4", size: file.size }
    })
    expect(started.status).toBe(201)
    const path = new URL(started.body.upload_url).pathname
    expect((await sendPart(first.baseUrl + path, first.testKey, file, started.body.part_size, 0)).status).toBe(200)
    expect((await sendPart(second.baseUrl + path, second.testKey, file, started.body.part_size, 1)).status).toBe(200)
    const completed = await call(second.baseUrl, "POST", `${path}/complete`, { key: second.testKey })
    expect(completed.body).toMatchObject({ status: "ready", size_bytes: file.size, duration_seconds: 14, codec: "avc1" })

    const signed = MediaUrls.signMediaUrl(
      { publicBaseUrl: first.baseUrl, keyring: Keyring.make([database.secret]) },
      { workspaceId: first.workspaceId, id: started.body.id },
      Date.now() + 10 * 60_000
    )
    const answer = await fetch(signed.replace(first.baseUrl, second.baseUrl), { redirect: "manual" })
    expect(answer.status).toBe(302)
    const location = answer.headers.get("location")!
    expect(location.startsWith(s3.endpoint)).toBe(true)
    const fetched = await fetch(location)
    expect(fetched.status).toBe(200)
    const bytes = new Uint8Array(await fetched.arrayBuffer())
    expect(bytes.length).toBe(file.size)
    expect(Buffer.compare(Buffer.from(bytes.subarray(0, 64)), Buffer.from(file.bytesAt(0, 64)))).toBe(0)
    expect(Buffer.compare(Buffer.from(bytes.subarray(-64)), Buffer.from(file.bytesAt(file.size - 64, 64)))).toBe(0)

    const tampered = await fetch(signed.replace(first.baseUrl, second.baseUrl).replace(/sig=[^&]+/, "sig=invalid"), { redirect: "manual" })
    expect(tampered.status).toBe(404)
  })
})
