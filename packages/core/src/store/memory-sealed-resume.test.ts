import { types } from 'node:util'
import { describe, expect, it } from 'vitest'
import { harness, msg } from '../testing/harness.js'
import { sealIdleSessions } from '../session/sealer.js'
import { sessionLog } from '../session/session.js'
import { memoryStore } from './memory.js'

// The memory store keeps "the same log object as its session (the
// pages are held once)" — but only from the resumed session's first append. An agent closed
// before its session was sealed (a host closing an idle session, a CLI run, `agent.close()` right
// after a turn) stays the entry's owner, and its log leaves the sweep at close: the store keeps
// that whole log as live objects. A later agent that resumes the session and stays idle (opened
// to be read or streamed) gets a fork that the sweep seals — while the store still holds every
// event live: two logs for one idle session, the sealed one saving nothing.

describe('the memory store and a session resumed after its agent closed unsealed', () => {
  it('once the resumed (idle) session is sealed, the store holds its pages, not a second, live copy', async () => {
    const store = memoryStore()
    const { agent: first } = await harness({ store, sessionId: 's', responses: [{ text: 'one' }, { text: 'two' }] })
    first.followup(msg('question one', 'q1'))
    await first.whenIdle()
    first.followup(msg('question two', 'q2'))
    await first.whenIdle()
    await first.close() // closed before any seal: it leaves the sweep, and stays the entry's owner

    const { agent: resumed } = await harness({ store, sessionId: 's' })
    await sealIdleSessions()
    expect(sessionLog(resumed.session).pages.length).toBeGreaterThan(0) // the resumed log is sealed

    const stored = (await store.open('s'))!
    await stored.writer.close()
    // Before the fix: the store still holds the closed agent's log, all live (a plain array comes out).
    expect(types.isProxy(stored.events)).toBe(true)
    await resumed.close()
  })
})
