import { configDefaults, defineConfig } from 'vitest/config'
import LongFilesFirst from './tests/support/long-files-first.js'

// Workspace packages resolve to their TypeScript sources through the `bosun-source` export
// condition, so the suite never needs a build.
const conditions = ['bosun-source', 'import', 'module', 'node', 'default']
// Vitest hands the SSR conditions to the worker's Node (`--conditions`), where they apply to
// require() too: with `import` there, a CommonJS package requiring a dependency that ships an ESM
// wrapper (pg → pg-pool) gets the wrapper's namespace. Vite adds `import`/`require`/`default` by itself.
const ssrConditions = ['bosun-source', 'module', 'node', 'development|production']

const ALL = ['packages/**/*.test.ts', 'packages/**/*.test.tsx', 'tests/**/*.test.ts', 'examples/**/*.test.ts', 'benchmarks/**/*.test.ts']
const LIBRARIES = ['core', 'adapters', 'plugins', 'host', 'testkit']
const SHARED = LIBRARIES.map((name) => `packages/${name}/**/*.test.ts`)
/** Library tests that need a module graph of their own: they read the heap, count compilations or sealed sessions. */
const ISOLATED = [
  'packages/core/src/intern.test.ts',
  'packages/core/src/inbox/inbox-idle.test.ts',
  'packages/core/src/session/surface-lazy.test.ts',
  'packages/core/src/session/sealer-retention.test.ts',
  'packages/core/src/session/sealer-lifetime.test.ts',
  'packages/host/test/review-stream-seal.test.ts',
  // These count the idle sessions the sealer seals (sealIdleSessions()), a list of the module's
  // own: sessions other files left open would be counted too, and a check of >0 could not fail.
  'packages/core/src/session/sealer.test.ts',
  'packages/host/test/stream-sealed.test.ts',
  'packages/host/test/log-prefix.test.ts',
  'packages/host/test/ai-sdk-sealed.test.ts',
  'packages/host/test/log-prefix-sealed.test.ts',
  'packages/host/test/list-first-prompt-sealed.test.ts',
  'packages/plugins/store-jsonl/src/options-once.test.ts',
  'packages/plugins/store-sqlite/src/options-once.test.ts',
]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions, externalConditions: ['bosun-source'] } },
  test: {
    benchmark: { include: ['packages/**/*.bench.ts', 'tests/**/*.bench.ts'] },
    testTimeout: 20_000,
    // Vitest's default is one worker per CPU but one, so a 2-core CI machine ran the files one at a
    // time while the longest of them (the release rehearsal, the marketplace, the browser tests)
    // mostly wait on child processes — npm installs, Verdaccio, Chromium, PostgreSQL. Two files at
    // once keep both cores busy; every test is written to pass on a busy machine.
    maxWorkers: 2,
    // Each file in a fresh worker thread, not a fresh child process (Vitest 4's default `forks`):
    // the suite is 500+ files, most of them small, and a process per file (Node's start, the module
    // graph imported again) cost `packages/core` a quarter of its run: 53 s → 40 s on a quiet
    // machine (docs/benchmarks.md, "The test suite's wall time").
    // Nothing in the suite needs a process of its own: what changes the process (signals,
    // process.exit, chdir) runs in the child processes the tests spawn.
    pool: 'threads',
    // The longest files first, whether or not Vitest has their durations cached (tests/support/long-files-first.ts).
    sequence: { sequencer: LongFilesFirst },
    // One PostgreSQL cluster for the run, started by the first test file that needs one (none
    // when no file does) and stopped at the end, instead of one initdb + start per file.
    globalSetup: ['packages/testkit/src/postgres-global-setup.ts'],
    projects: [
      // The libraries' own tests: in-process, no child processes of their own to speak of. They
      // share their workers' module graph (isolate: false) instead of importing the core, the
      // stores and the adapters again for every one of ~400 files: that import was a third of the
      // suite's worker time (docs/benchmarks.md, "The test suite's wall time"). Before each file
      // the setup file resets what a file could leave behind: the secrets registered for masking
      // (kept on `globalThis`) and fake timers.
      { extends: true, test: { name: 'shared', include: SHARED, exclude: [...ISOLATED, ...configDefaults.exclude], isolate: false, setupFiles: ['tests/support/shared-graph-setup.ts'] } },
      // The rest in a fresh thread each: what drives real processes, browsers and registries, and
      // the web UI's DOM tests...
      { extends: true, test: { name: 'isolated', include: ALL, exclude: [...SHARED, ...configDefaults.exclude] } },
      // ...and the library tests that read the heap or count schema compilations, which what other
      // files left behind in a shared module graph would skew.
      { extends: true, test: { name: 'own-graph', include: ISOLATED } },
    ],
  },
})
