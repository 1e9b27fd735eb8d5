import { afterAll } from "vitest"
import { S3BlobStore } from "@postwire/server"
import { startS3Server, type TestS3Server } from "../support/S3Server.ts"
import { blobStoreConformance } from "./BlobStoreConformance.ts"

let s3: TestS3Server | undefined
afterAll(() => s3?.stop())

blobStoreConformance(
  "S3-compatible bucket (s3rver)",
  async () => {
    s3 = await startS3Server()
    return S3BlobStore.layer(S3BlobStore.parseS3Url(s3.url))
  },
  { minPartBytes: 5 * 1024 * 1024 }
)
