// A host without a cluster whose session writer is refused (STALE_WRITER: its JSONL file was
// replaced, or another writer appended to it) lets the session go (stale-writer-reopen.test).
// It did so without saying it: the only line was the store's error, ending with the store's
// "Reopen the session." — advice for its API caller, not what the operator of a host can do. The
// host now logs one line of its own: which session, that another writer changed its log, what it
// stopped, and what a client and the operator do next. Real JSONL files.
import { copyFile, readdir, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { BosunError, ErrorCodes } from '@bosun/core'
import { json, makeHost, perTest, req, waitFor } from './helpers.js'
import { staleWriterLine } from '../src/session-dropped.js'

const t = perTest()
afterEach(() => {
  vi.restoreAllMocks()
})

/** Every line the host logs (through console.error). */
const hostLines = (): string[] => {
  const lines: string[] = []
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '))
  })
  return lines
}

/**
 * A host whose session "s" ran a turn, then had its file replaced with a copy of itself (a restore,
 * an editor's save): the writer's file has no name left, so its next write is refused.
 */
const replacedUnderWriter = async () => {
  const lines = hostLines()
  const { host, store } = makeHost(t.dir)
  // Their close reports the refused writer's unwritten events (stale-writer-reopen.test ignores it too).
  t.closing.push({ close: () => store.close().catch(() => {}) }, { close: () => host.close().catch(() => {}) })
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  expect((await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-1', content: 'one' })).status).toBe(202)
  await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/s'))).status === 'idle', 15_000, 'the first turn ran')
  const file = (await readdir(t.dir)).find((name) => name.startsWith('s') && name.endsWith('.jsonl'))!
  await copyFile(join(t.dir, file), join(t.dir, `${file}.copy`))
  await rename(join(t.dir, `${file}.copy`), join(t.dir, file))
  return { host, file, lines }
}

it('a write refused because the session file was replaced: one line naming the session, what stopped and what to do', async () => {
  const { host, lines } = await replacedUnderWriter()

  expect((await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-2', content: 'two' })).status).toBe(409)
  const dropped = await waitFor(() => lines.find((line) => line.includes('another writer changed its stored log')), 15_000, () => `the drop's line, among: ${lines.join('\n')}`)
  expect(dropped).toMatch(/^\[bosun host\] session "s" was let go here: another writer changed its stored log \(Session "s": .*s.*\.jsonl was deleted or replaced while this writer had it open; nothing was written/)
  expect(dropped).toContain('This host stopped its agent:')
  // c-2 was admitted in memory and never written: lost, and its sender told how to send it again.
  expect(dropped).toContain('1 message accepted here and not yet written is lost')
  expect(dropped).toContain('The next request for it opens it again from the store.')
  // The store's advice to its caller is not the operator's next step, and one line says it all.
  expect(lines.filter((line) => /reopen/i.test(line))).toEqual([])
  expect(lines.filter((line) => line.includes('"s"'))).toEqual([dropped])
})

it('a turn whose write is refused (a plain send, no request waiting on the write): the session is let go with the same line, and the next send is written', async () => {
  const { host, file, lines } = await replacedUnderWriter()

  // Accepted in memory; its turn's write before the model request is refused. Before, the session
  // stayed open with its stale writer: every later send was accepted and lost, without a line.
  expect((await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'c-2', content: 'two' })).status).toBe(202)
  const dropped = await waitFor(() => lines.find((line) => line.includes('another writer changed its stored log')), 15_000, () => `the drop's line, among: ${lines.join('\n')}`)
  expect(dropped).toMatch(/^\[bosun host\] session "s" was let go here: another writer changed its stored log \(Session "s": /)
  expect(dropped).toContain('1 message accepted here and not yet written is lost')
  await waitFor(async () => (await host.sessions.peek('s')) === undefined, 15_000, 'the session let go')

  // The next send opens it again from the file, and is written there.
  expect((await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-3', content: 'three' })).status).toBe(202)
  expect(await readFile(join(t.dir, file), 'utf8')).toContain('"c-3"')
  expect(lines.filter((line) => line.includes('"s"'))).toEqual([dropped])
})

it('staleWriterLine: the store\'s advice cut, a borrowed child, messages lost', () => {
  const error = new BosunError(ErrorCodes.STALE_WRITER, 'Session "s" has 4 stored events but an append brought seq 3: another writer is using this session. Reopen it to continue.')
  const line = staleWriterLine('s', error, { handedOver: 0, lost: 0, streams: 2, running: true, borrowed: false })
  expect(line).toBe('[bosun host] session "s" was let go here: another writer changed its stored log (Session "s" has 4 stored events but an append brought seq 3: another writer is using this session).'
    + ' This host stopped its agent: its turn under way here is canceled, 2 streams of it here ended (a client reconnecting is served from the store), no accepted message was left unwritten.'
    + ' The next request for it opens it again from the store. If nothing else should write it, find what did (another host or bosun process on the same store, a restore, a sync tool) and stop it: two writers of a session refuse each other\'s writes.')
  expect(staleWriterLine('c', error, { handedOver: 0, lost: 0, streams: 0, running: false, borrowed: true })).toContain("This host let it go (a subagent's child: its parent here stops it); 0 streams of it here ended")
  expect(staleWriterLine('s', error, { handedOver: 0, lost: 2, streams: 0, running: false, borrowed: false })).toContain(
    '2 messages accepted here and not yet written are lost (a lookup of each answers message-not-found: their senders can send them again under the same clientMessageId)',
  )
})
