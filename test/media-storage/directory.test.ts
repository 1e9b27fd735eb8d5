import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { BlobStore } from "@postwire/core"
import { FileBlobStore } from "@postwire/server"
import { blobStoreConformance } from "./BlobStoreConformance.ts"

const directory = mkdtempSync(join(tmpdir(), "postwire-blobs-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

blobStoreConformance("local directory", () => FileBlobStore.layer(directory))
blobStoreConformance("memory", () => BlobStore.layerMemory)
