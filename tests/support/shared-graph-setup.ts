// Runs before each file of the `shared` test project (vitest.config.ts), whose files share their
// worker's module graph and globals. It takes away what one file — even one that failed halfway —
// could leave behind to change another's outcome:
import { vi } from 'vitest'
import { forgetSecretsForTesting } from '../../packages/core/src/config/secret-values.js'

// - no registered secrets: a process keeps the value of every secret it registers (keys, tokens;
//   masked wherever text is quoted, kept on `globalThis`), and a token of x's a host test
//   registered masked another file's "xxxx…";
// (The environment is left as files leave it: test helpers set keys once, when first imported,
// and a shared graph imports them once.)
forgetSecretsForTesting()

// - real timers: a file that faked them and failed before its `useRealTimers()`.
vi.useRealTimers()
