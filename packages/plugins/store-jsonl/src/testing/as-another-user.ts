// Runs a snippet on the built package as a user who is not the owner of the test's files.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url))

/**
 * Runs `body`, an ES module body with `jsonlStore` in scope (from the built package, dist, as
 * bosun loads it), in a child process: as "nobody" (uid 65534) when the tests run as root — root
 * reads and creates anything, an ordinary user does not — else as the current user. The folders
 * it must reach need mode 0755 (a temporary folder is 0700). Resolves with what it printed.
 */
export function runAsAnotherUser(body: string, cwd: string): { stdout: string; stderr: string } {
  const asRoot = process.getuid?.() === 0
  const script = `import { jsonlStore } from ${JSON.stringify(DIST)}\n${body}`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd, encoding: 'utf8', ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  })
  return { stdout: result.stdout, stderr: result.stderr }
}

/** A body for {@link runAsAnotherUser} printing, as JSON, the `code`, `message` and `details` of the error `call` (an expression using `store`) rejects with. */
export function printRejection(dir: string, call: string): string {
  return `const store = jsonlStore({ dir: ${JSON.stringify(dir)} })
    await (${call}).then(() => console.log('resolved'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message, details: e.details })))
    await store.close()`
}
