import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: { conditions: ["@postwire/source"] },
  ssr: { resolve: { conditions: ["@postwire/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    // The files of a worker share its modules: each file imported Effect and the packages afresh,
    // 262 s of the suite's 876 s on a slow two-core machine (601 s without). Every file builds
    // its own servers, stores and layers, and restores what it spies on.
    isolate: false
  }
})
