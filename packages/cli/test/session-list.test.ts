import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError, createAgent, createUserMessage, forkSession, type SessionEvent, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { sessionInfo } from '../src/session-info.js'
import { listSessions } from '../src/session-list.js'
import { storeReader } from '../src/session-reader.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bosun-list-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/**
 * `store`, counting the calls that read a whole log and those that read a header; `summaries:
 * false` lists without the summary fields, `'no delegation'` without the entries' `delegation`
 * (a store that does not give it).
 */
function watched(store: Store, summaries: boolean | 'no delegation' = true): Store & { logReads: number; headerReads: number } {
  const wrapper = {
    name: store.name,
    logReads: 0,
    headerReads: 0,
    create: store.create.bind(store),
    async open(id: string) {
      wrapper.logReads++
      return store.open(id)
    },
    async header(id: string) {
      wrapper.headerReads++
      return store.header!(id)
    },
    async list() {
      const listed = await store.list()
      if (summaries === 'no delegation') return listed.map(({ delegation: _delegation, ...rest }) => rest)
      return summaries ? listed : listed.map(({ id, createdAt, parent, length }) => ({ id, createdAt, ...(parent === undefined ? {} : { parent }), length }))
    },
    close: store.close.bind(store),
  }
  return wrapper
}

/** Sessions of every kind the list tells apart: turns, a queued message, a fork, a subagent-like child. */
async function sessions(file: string): Promise<void> {
  const store = sqliteStore({ file })
  const agent = await createAgent({ model: scripted(), store, sessionId: 'turns' })
  agent.followup('first prompt')
  agent.followup('second prompt')
  await agent.whenIdle()
  await agent.close()
  const parked = await createAgent({ model: scripted(), store, sessionId: 'parked' })
  parked.followup('left from before')
  parked.abort('closed')
  await parked.close()
  await (await forkSession(store, 'turns', { id: 'forked', afterTurn: 1 })).writer.close()
  const delegation = { parentSessionId: 'turns', callId: 'call-1', depth: 1, mode: 'one-shot' as const }
  await (await store.create({ id: 'child', version: 1, createdAt: 5, delegation })).writer.close()
  await store.close()
}

describe('sessions list', () => {
  it('lists from the summaries a store keeps, reading no log and no header but a fork\'s, exactly what reading every log gives', async () => {
    const file = join(dir, 'sessions.sqlite')
    await sessions(file)
    const cheap = watched(sqliteStore({ file }))
    const full = watched(sqliteStore({ file }), false)
    const older = watched(sqliteStore({ file }), 'no delegation')
    const skipped: string[] = []
    const listed = await listSessions(storeReader(cheap), (id) => skipped.push(id))
    const read = await listSessions(storeReader(full), (id) => skipped.push(id))
    const fallenBack = await listSessions(storeReader(older), (id) => skipped.push(id))
    await cheap.close()
    await full.close()
    await older.close()
    expect(skipped).toEqual([])
    // The fork's seedLength is in its header only; the list entry gives the rest (delegation too).
    expect([cheap.logReads, cheap.headerReads]).toEqual([0, 1])
    expect(full.logReads).toBe(4)
    // A store whose entries lack delegation: each header is read for it.
    expect([older.logReads, older.headerReads]).toEqual([0, 4])
    expect(JSON.stringify(listed)).toBe(JSON.stringify(read))
    expect(JSON.stringify(fallenBack)).toBe(JSON.stringify(read))
    expect(listed.find((session) => session.id === 'child')).toMatchObject({ delegation: { parentSessionId: 'turns', mode: 'one-shot' }, parentSessionId: 'turns', seedLength: 0 })
    expect(listed.find((session) => session.id === 'forked')).toMatchObject({ parent: 'turns', seedLength: 14 })
    expect(listed.map(({ id, turns, pending, firstPrompt }) => ({ id, turns, pending, firstPrompt }))).toEqual([
      { id: 'child', turns: 0, pending: 0, firstPrompt: undefined },
      { id: 'turns', turns: 2, pending: 0, firstPrompt: 'first prompt' },
      { id: 'parked', turns: 0, pending: 1, firstPrompt: 'left from before' },
      { id: 'forked', turns: 1, pending: 0, firstPrompt: 'first prompt' },
    ])
  })

  it('gives the same rows from a summary and from the log for a long first prompt and for splices the inbox cannot replay', async () => {
    const file = join(dir, 'sessions.sqlite')
    const store = sqliteStore({ file })
    const event = (seq: number, type: string, data: object) => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type, data }) as SessionEvent
    const long = await store.create({ id: 'long', version: 1, createdAt: 1 })
    long.writer.append(event(0, 'user/message', createUserMessage('x'.repeat(10_000), { id: 'u' })))
    await long.writer.close()
    // A splice to a queue that does not exist: the agent's inbox refuses to replay it; the summary
    // counts what it leaves in the two queues (pending: their sum), nothing, and takes its first prompt.
    const odd = await store.create({ id: 'odd', version: 1, createdAt: 2 })
    odd.writer.append(event(0, 'agent/inbox/spliced', { target: 'nowhere', start: 0, inserted: [createUserMessage('queued', { id: 'q' })] }))
    await odd.writer.close()
    const cheap = watched(store)
    const full = watched(store, false)
    const skipped: string[] = []
    const listed = await listSessions(storeReader(cheap), (id) => skipped.push(id))
    const read = await listSessions(storeReader(full), (id) => skipped.push(id))
    expect(skipped).toEqual([])
    expect([cheap.logReads, cheap.headerReads, full.logReads]).toEqual([0, 0, 2])
    expect(JSON.stringify(read)).toBe(JSON.stringify(listed))
    expect(listed.map(({ id, firstPrompt, pending }) => ({ id, firstPrompt, pending }))).toEqual([
      { id: 'long', firstPrompt: `${'x'.repeat(199)}…`, pending: 0 },
      { id: 'odd', firstPrompt: 'queued', pending: 0 },
    ])
    // `sessions show` replays the inbox, and refuses the log.
    const opened = (await store.open('odd'))!
    await opened.writer.close()
    expect(() => sessionInfo({ header: opened.header, events: [...opened.events] })).toThrow(expect.objectContaining({ code: 'INVALID_PERSISTED_SPLICE' }) as BosunError)
    await store.close()
  })

  it('sessions show refuses a splice the inbox cannot replay with its coded error, also when a turn never reached a step', () => {
    const event = (seq: number, type: string, data: object) => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type, data }) as SessionEvent
    // A blocked turn has no user/message (its prompt is looked up among the claimed messages), then a damaged splice.
    const events = [
      event(0, 'turn/start', { turn: 1 }),
      event(1, 'turn/end', { turn: 1, reason: { kind: 'blocked', by: 'guard', metadata: {} } }),
      event(2, 'agent/inbox/spliced', { target: 'nowhere', start: 0, inserted: [createUserMessage('queued', { id: 'q' })] }),
    ]
    expect(() => sessionInfo({ header: { id: 'odd', version: 1, createdAt: 1 }, events })).toThrow(expect.objectContaining({ code: 'INVALID_PERSISTED_SPLICE' }) as BosunError)
  })
})
