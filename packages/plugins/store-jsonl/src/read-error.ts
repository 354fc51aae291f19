import { BosunError, ErrorCodes } from '@bosun/core'
import { errnoCode } from './file-system.js'

/**
 * The STORE error for a session file that could not be read (`read()`, `header()`, `readEvents()`,
 * `summary()`, `list()`, and the reading part of `open()`): like a failed write's (file-writes.ts),
 * it names the file and the step and keeps the system error as `cause`, but says read — `bosun log`
 * of a session another user wrote said "Could not write" — and what to do about it.
 * `details.operation` is `'read'`: an application's advice about writing (the CLI's) is not for it.
 */
export function readError(step: string, file: string, id: string, cause: unknown): BosunError {
  const code = errnoCode(cause)
  return new BosunError(
    ErrorCodes.STORE,
    `Could not read session "${id}" from ${file}: ${step} failed: ${(cause as Error)?.message ?? String(cause)}. ${whatToDo(code)}`,
    { cause, details: { sessionId: id, file, step, operation: 'read', ...(code ? { errno: code } : {}) } },
  )
}

/** What to do, by the system error's code. */
function whatToDo(code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'The user running this process may not read it (the store creates session files readable by their owner only): ' +
        'read it as the user who wrote it, or give this user read access to the file.'
    case 'ENOTDIR':
      return 'A part of the sessions folder\'s path is a file, not a folder: move that file away, or give the store another "dir".'
    case 'EIO':
      return 'The disk reported an error: check it (the system log says more), then try again.'
    case 'EMFILE':
    case 'ENFILE':
      return 'Too many files are open: close some, or raise the limit (ulimit -n), then try again.'
    case 'ENOMEM':
      return 'The system is out of memory: free some, then try again.'
    default:
      return 'Check that this user can read the file and that its disk works, then try again.'
  }
}
