/**
 * A real S3-compatible server for tests: `s3rver` on a random loopback port, keeping its
 * objects in a temporary directory, with one bucket. Stopping it deletes everything.
 */
import { mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
// @ts-expect-error s3rver ships no type declarations
import S3rver from "s3rver"

/** A running S3-compatible server. */
export interface TestS3Server {
  /** `POSTWIRE_MEDIA_S3_URL` for its bucket. */
  readonly url: string
  readonly endpoint: string
  readonly bucket: string
  readonly stop: () => Promise<void>
}

/** Starts s3rver with the bucket `bucket`. */
export const startS3Server = async (bucket = "postwire-media"): Promise<TestS3Server> => {
  const directory = mkdtempSync(join(tmpdir(), "postwire-s3-"))
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket }] })
  const address = (await server.run()) as AddressInfo
  const endpoint = `127.0.0.1:${address.port}`
  return {
    // s3rver accepts any credentials; these are its documented defaults.
    url: `s3://S3RVER:S3RVER@${endpoint}/${bucket}?region=us-east-1&path_style=true&tls=false`,
    endpoint: `http://${endpoint}`,
    bucket,
    stop: async () => {
      // Clients keep connections alive; close them so the server stops at once.
      server.httpServer?.closeAllConnections?.()
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    }
  }
}
