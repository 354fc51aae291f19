// Runs before each file of the `shared` test project (vitest.config.ts), whose files share their
// worker's module graph and globals. A process keeps the values of every secret it registers
// (keys, tokens: masked wherever text is quoted, on `globalThis`), and a file that ran earlier in
// the same worker must not leave its secrets to mask another file's text: each file starts with
// none, as it would in a process of its own.
import { forgetSecretsForTesting } from '../../packages/core/src/config/secret-values.js'

forgetSecretsForTesting()
