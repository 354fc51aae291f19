import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { preStepThatNeverReturns } from '../testing/hold-steps.js'
import type { UserMessage } from '../session/messages.js'
import { memoryStore } from './memory.js'

// SPEC §4: a send with a wake while the current turn is aborted goes to next-turn and is woken
// once the aborted turn retires ("Stop, then type the next message"). Its splice lands before the
// aborted turn's turn/end, so repair used to count it as input a Stop left pending — parked —
// although the live agent runs a turn for it: a kill between that turn/end and the next
// turn/start left it parked for ever. The send now records `source.afterAbort`.

type Live = Awaited<ReturnType<typeof createAgent>>

/** Resolves once the log holds `count` turn/start events (a condition, not a delay). */
function turnStarts(agent: Live, count: number): Promise<void> {
  const starts = () => agent.session.events.filter((e) => e.type === 'turn/start').length
  return new Promise((resolve) => {
    if (starts() >= count) return resolve()
    const off = agent.session.subscribe(() => {
      if (starts() >= count) {
        off()
        resolve()
      }
    })
  })
}

/** A live agent whose first turn is running (held in its pre-step until aborted). */
async function runningAgent(sessionId: string) {
  const store = memoryStore()
  const live = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()], store, sessionId })
  live.followup('first')
  await turnStarts(live, 1)
  return { store, live }
}

/** Reopens a session whose live agent was left idle with `sent` queued and the Stop's parking in force. */
async function expectParked(store: ReturnType<typeof memoryStore>, sessionId: string, sent: UserMessage) {
  const reopened = await createAgent({ model: scripted(), store, sessionId })
  expect(reopened.inbox.nextTurn.map((m) => m.id)).toEqual([sent.id])
  expect(reopened.recovery.waiting).toBeUndefined()
  await reopened.close()
}

describe('repair: a follow-up sent after a Stop, before the stopped turn ended', () => {
  it('is owed a wake after a crash between the aborted turn/end and its own turn/start', async () => {
    const { store, live } = await runningAgent('stop-then-send')
    live.abort('stop')
    const sent = live.followup('after stop') // the aborted turn has not ended yet
    // The live agent runs a turn for it once the aborted one retires: wait for that turn's start.
    await turnStarts(live, 2)
    live.abort('done')
    await live.whenIdle()
    await live.close()

    const full = (await store.open('stop-then-send'))!
    await full.writer.close()
    const firstEnd = full.events.findIndex((e) => e.type === 'turn/end')
    expect((full.events[firstEnd]!.data as { reason: { kind: string } }).reason.kind).toBe('aborted')
    // What a kill right after the aborted turn/end leaves.
    const cut = memoryStore()
    await (await cut.create(full.header, full.events.slice(0, firstEnd + 1))).writer.close()
    const reopened = await createAgent({ model: scripted({ responses: [{ text: 'ok' }] }), store: cut, sessionId: 'stop-then-send' })
    expect(reopened.inbox.nextTurn.map((m) => m.id)).toEqual([sent.id])
    expect(reopened.recovery.waiting).toEqual([sent.id])
    expect(sent.source).toEqual({ kind: 'user', delivery: 'followup', afterAbort: true })
    await reopened.close()
  })

  it('leaves parked a follow-up sent before the Stop (pending at the aborted end)', async () => {
    const { store, live } = await runningAgent('send-then-stop')
    const sent = live.followup('queued while running')
    live.abort('stop')
    await live.whenIdle()
    await live.close()
    expect(sent.source.afterAbort).toBeUndefined()
    await expectParked(store, 'send-then-stop', sent)
  })

  it('leaves parked a follow-up sent after a Stop that a later turn took, put back, and was stopped with', async () => {
    const { store, live } = await runningAgent('stop-twice')
    live.abort('stop')
    const sent = live.followup('after stop')
    await turnStarts(live, 2)
    // The second turn claimed it (its pre-step holds): put it back, as a plugin may, then Stop.
    expect(live.inbox.hasPending).toBe(false)
    live.inbox.requeue('next-turn', 0, [sent])
    live.abort('stop again')
    await live.whenIdle()
    await live.close()
    expect(sent.source.afterAbort).toBe(true)
    // The second Stop parked it: the live agent ran nothing more, and neither may a resume.
    expect(live.session.events.filter((e) => e.type === 'turn/start')).toHaveLength(2)
    await expectParked(store, 'stop-twice', sent)
  })
})
