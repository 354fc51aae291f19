import { defineConfig } from 'vitest/config'

// Workspace packages resolve to their TypeScript sources through the `bosun-source` export
// condition, so the suite never needs a build.
const conditions = ['bosun-source', 'import', 'module', 'node', 'default']

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['bosun-source'] } },
  test: {
    include: ['packages/**/*.test.ts', 'packages/**/*.test.tsx', 'tests/**/*.test.ts', 'examples/**/*.test.ts', 'benchmarks/**/*.test.ts'],
    benchmark: { include: ['packages/**/*.bench.ts', 'tests/**/*.bench.ts'] },
    testTimeout: 20_000,
  },
})
