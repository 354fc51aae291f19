// Runs before each file of the `shared` test project (vitest.config.ts), whose files share their
// worker's module graph and globals. Each file starts with what it would have in a thread of its
// own, so that one file — even one that failed halfway — cannot change another's outcome:
import { vi } from 'vitest'
import { forgetSecretsForTesting } from '../../packages/core/src/config/secret-values.js'

// - no registered secrets: a process keeps the value of every secret it registers (keys, tokens;
//   masked wherever text is quoted, kept on `globalThis`), and a token of x's a host test
//   registered masked another file's "xxxx…";
forgetSecretsForTesting()

// - the environment the worker started with: tests set and delete variables (keys read from
//   `…Env` options) and restore them in their own hooks, which a failure can skip;
const KEY = Symbol.for('bosun.tests.initialEnv')
const store = globalThis as { [KEY]?: Record<string, string | undefined> }
const initial = (store[KEY] ??= { ...process.env })
for (const name of Object.keys(process.env)) if (!(name in initial)) delete process.env[name]
Object.assign(process.env, initial)

// - real timers: a file that faked them and failed before its `useRealTimers()`.
vi.useRealTimers()
