import { defineConfig } from 'vitest/config'

// The package's own config, so that a vitest config of an enclosing monorepo does not apply.
export default defineConfig({
  test: { include: ['src/**/*.test.ts'] },
})
