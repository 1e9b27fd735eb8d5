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
    maxWorkers: 2
  }
})
