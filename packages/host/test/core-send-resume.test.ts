import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent, type Agent, type UserMessage } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { json, perTest, req, waitFor } from './helpers.js'

const t = perTest()

/**
 * A program (no host) runs a session on the JSONL store and sends once more with `send`; then the
 * session file is cut right after that send's splice line: what a kill between the send's durable
 * splice and its turn's `turn/start` leaves on disk.
 */
async function programKilledAfterSend(id: string, send: (agent: Agent) => UserMessage): Promise<UserMessage> {
  const store = jsonlStore({ dir: t.dir })
  const program = await createAgent({ model: scripted({ responses: [{ text: 'first' }, { text: 'second' }] }), store, sessionId: id })
  program.followup('answered before')
  await program.whenIdle()
  const sent = send(program)
  await program.whenIdle()
  await program.close()
  // The store's close deletes its journal (every writer synced its file): the session file alone is the log to cut.
  await store.close()
  const file = join(t.dir, `${id}.jsonl`)
  const lines = (await readFile(file, 'utf8')).split('\n')
  const splice = lines.findIndex((line) => line.includes('"type":"agent/inbox/spliced"') && line.includes(`"id":"${sent.id}"`))
  expect(splice).toBeGreaterThan(0)
  await writeFile(file, lines.slice(0, splice + 1).join('\n') + '\n')
  return sent
}

function hostOn(dir: string): Host {
  const store = jsonlStore({ dir })
  // Listed before the host, so closed after it (the list closes in reverse): a store left open keeps its journal file open.
  t.closing.push(store)
  return createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'after the restart' }] }), store, sessionId }),
    limits: { keepAliveMs: 200 },
  })
}

describe('a direct core send a crash cut before its turn', () => {
  it.each([
    ['followup', (agent: Agent) => agent.followup('sent by the program')],
    ['steer', (agent: Agent) => agent.steer('steered by the program')],
  ] as const)('agent.%s(): resume reports it waiting (the send recorded its delivery) and the host runs it', async (how, send) => {
    const sent = await programKilledAfterSend(`direct-${how}`, send)
    expect(sent.source).toEqual({ kind: 'user', delivery: how })
    const host = hostOn(t.dir)
    t.closing.push(host)
    const live = await host.sessions.use(`direct-${how}`)
    expect(live.agent.recovery.waiting).toEqual([sent.id])
    await waitFor(async () => (await json(req(host, 'GET', `/v1/sessions/direct-${how}/messages/${sent.id}`))).stepped === true)
    await waitFor(async () => (await json(req(host, 'GET', `/v1/sessions/direct-${how}`))).status === 'idle')
    const turnEnds = live.agent.session.events.filter((e) => e.type === 'turn/end')
    expect(turnEnds.map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed', 'completed'])
  })

  it('agent.inject(): resume leaves it parked (an inject never woke the agent)', async () => {
    const sent = await programKilledAfterSend('direct-inject', (agent) => {
      const injected = agent.inject('context for later')
      // So that a turn takes it: the cut then falls between the inject's splice and this send's.
      agent.followup('runs it')
      return injected
    })
    const host = hostOn(t.dir)
    t.closing.push(host)
    const live = await host.sessions.use('direct-inject')
    expect(live.agent.recovery.waiting).toBeUndefined()
    expect(await json(req(host, 'GET', '/v1/sessions/direct-inject'))).toMatchObject({ status: 'idle', inbox: { 'next-step': [{ id: sent.id }] } })
  })
})
