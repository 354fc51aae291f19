import { BosunError, ErrorCodes } from '../errors.js'

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
/** Device names Windows reserves in every folder, alone or before an extension (`CON`, `nul.txt`). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i

/**
 * Refuses a session id that could escape a store's directory or confuse a file system:
 * 1–128 characters of letters, digits, `.`, `_` and `-`, starting with a letter or digit.
 * (So no separators, no `..`, no leading dot, no control characters, and none of the device
 * names Windows reserves, such as `CON` or `nul`, which would not name a file there.)
 */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !SESSION_ID.test(id) || id.includes('..') || WINDOWS_RESERVED.test(id)) {
    throw new BosunError(
      ErrorCodes.INVALID_SESSION_ID,
      `Invalid session id ${JSON.stringify(id)}: use 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit (no "/", "\\" or "..", and not a name Windows reserves such as CON or NUL).`,
      { details: { id: typeof id === 'string' ? id.slice(0, 200) : typeof id } },
    )
  }
}
