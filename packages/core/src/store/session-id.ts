import { BosunError, ErrorCodes } from '../errors.js'

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/**
 * Refuses a session id that could escape a store's directory or confuse a file system:
 * 1–128 characters of letters, digits, `.`, `_` and `-`, starting with a letter or digit.
 * (So no separators, no `..`, no leading dot, no control characters.)
 */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !SESSION_ID.test(id) || id.includes('..')) {
    throw new BosunError(
      ErrorCodes.INVALID_SESSION_ID,
      `Invalid session id ${JSON.stringify(id)}: use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit (no "/", "\\" or "..").`,
      { details: { id: typeof id === 'string' ? id.slice(0, 200) : typeof id } },
    )
  }
}
