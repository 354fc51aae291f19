// A session the store cannot read is reported as a read, with what to do. It said "Could not write
// session …" for every failed file operation, so `bosun log x` of a session another user wrote
// answered that bosun could not *write* it.
import { chmod } from 'node:fs/promises'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { event, header, rejection, sessionFile } from './testing/fixtures.js'
import { printRejection, runAsAnotherUser } from './testing/as-another-user.js'
import { recordingFs, tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

/** Session `s` with one event, written and closed. */
async function writeSession(): Promise<string> {
  const store = jsonlStore({ dir })
  const { writer } = await store.create(header('s'))
  writer.append(event(0))
  await writer.close()
  await store.close()
  return sessionFile(dir, 's')
}

it.each([
  ['read', "store.read('s')"],
  ['header', "store.header('s')"],
  ['readEvents', "store.readEvents('s', 0)"],
  ['summary', "store.summary('s')"],
  ['list', 'store.list()'],
])('%s() of a session file this user may not read says it could not read it, and what to do', async (_name, call) => {
  const file = await writeSession()
  await chmod(dir, 0o755)
  // Unreadable for anyone but root; the child runs as "nobody" when the tests run as root.
  await chmod(file, 0o000)
  const result = runAsAnotherUser(printRejection(dir, call), dir)
  expect(result.stderr).toBe('')
  const error = JSON.parse(result.stdout)
  expect(error).toEqual({
    code: 'STORE',
    message:
      `Could not read session "s" from ${file}: open failed: EACCES: permission denied, open '${file}'. ` +
      'The user running this process may not read it (the store creates session files readable by their owner only): ' +
      'read it as the user who wrote it, or give this user read access to the file.',
    details: { sessionId: 's', file, step: 'open', operation: 'read', errno: 'EACCES' },
  })
})

it('a read that fails part-way says read, keeps the system error, and says what to do', async () => {
  const file = await writeSession()
  const fs = recordingFs()
  fs.fail = (call) => (call.op === 'readFile' && call.path === file ? 'EIO' : undefined)
  const store = jsonlStore({ dir, fs })
  for (const reading of [() => store.read!('s'), () => store.open('s')]) {
    const error = await rejection(reading())
    expect(error.message).toBe(
      `Could not read session "s" from ${file}: read failed: EIO: injected failure, readFile '${file}'. ` +
        'The disk reported an error: check it (the system log says more), then try again.',
    )
    expect(error.details).toEqual({ sessionId: 's', file, step: 'read', operation: 'read', errno: 'EIO' })
    expect(error.cause).toMatchObject({ code: 'EIO' })
  }
  await store.close()
})

it('opening a session this user may not write still says it could not write it', async () => {
  const file = await writeSession()
  await chmod(dir, 0o755)
  await chmod(file, 0o000)
  const error = JSON.parse(runAsAnotherUser(printRejection(dir, "store.open('s')"), dir).stdout)
  expect(error.message).toMatch(new RegExp(`^Could not write session "s" to ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: open failed: EACCES`))
})
