// Two sessions whose files are two files must have two records of a valid length, on every file
// system the store runs on. Windows drops a name's trailing dots, so `.bosun-valid-<id>` named
// the same file for the ids `a` and `a.` (whose session files, `a.jsonl` and `a..jsonl`, differ):
// opening one session deleted the other's record (its header crc differs), and the other's
// rejected batch could come back. Names are compared as Windows and case-insensitive macOS do.
import { join } from 'node:path'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { isSessionId } from './session-file.js'
import { validLengthPath } from './valid-length.js'

const dir = join('/', 'sessions')
/** A name as Windows resolves it (trailing dots and spaces dropped) and compares it (case folded). */
const asWindows = (name: string) => name.replace(/[. ]+$/, '').toLowerCase()
const sessionName = (id: string) => asWindows(`${id}.jsonl`)
const recordName = (id: string) => asWindows(validLengthPath(join(dir, `${id}.jsonl`)).slice(dir.length + 1))
const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,10}$/).filter(isSessionId)

it('ids with distinct session files have distinct records, trailing dots included', () => {
  // Before: counterexample ["a", "a."].
  fc.assert(
    fc.property(id, fc.constantFrom('', '.', '-', '_'), fc.boolean(), (base, tail, upper) => {
      const other = (upper ? base.toUpperCase() : base) + tail
      fc.pre(isSessionId(other) && other !== base && sessionName(other) !== sessionName(base))
      expect(recordName(other)).not.toBe(recordName(base))
    }),
    { numRuns: 500 },
  )
  fc.assert(
    fc.property(id, id, (a, b) => {
      fc.pre(sessionName(a) !== sessionName(b))
      expect(recordName(a)).not.toBe(recordName(b))
    }),
    { numRuns: 500 },
  )
})

it('a record\'s name never ends with a dot, and has its own prefix', () => {
  fc.assert(
    fc.property(id, (x) => {
      const name = validLengthPath(join(dir, `${x}.jsonl`)).slice(dir.length + 1)
      expect(name.endsWith('.')).toBe(false)
      expect(name.startsWith('.bosun-valid-')).toBe(true)
    }),
    { numRuns: 500 },
  )
})
