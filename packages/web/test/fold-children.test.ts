import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent, memoryStore } from '@bosun/core'
import { createHost } from '@bosun/host'
import { createClient } from '@bosun/host/client'
import subagents from '@bosun/plugin-subagents'
import { emptySession, foldEvents } from '../app/state/fold.js'
import { answerPreview } from '../app/state/select.js'
import type { ChildView, SessionView } from '../app/state/view.js'
import type { WireEvent } from '../app/state/wire.js'
import { until } from './host-harness.js'
import { routeByFirstMessage } from './subagent-route.js'

/** The root spawns a foreground child in step 1 and a background one in step 2; the background child settles after the root's turn ended. */
const script: Record<string, ScriptedResponse[]> = {
  plan: [{ toolCalls: [{ name: 'spawn_agent', id: 's1', args: { task: 'check' } }] }, { toolCalls: [{ name: 'spawn_agent', id: 's2', args: { task: 'dig', mode: 'background' } }] }, { text: 'waiting' }],
  check: [{ text: 'checked' }],
  dig: [{ text: 'dug deep\nand wide' }],
}
const route = routeByFirstMessage(script, { text: 'noted' })

/** The root's log, written by a real host with the subagents plugin, once both children settled. */
async function parentLog(): Promise<WireEvent[]> {
  const host = createHost({ store: memoryStore(), agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 100 }, () => route) }), store, sessionId, plugins: [subagents] }) })
  try {
    const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (input, init) => host.fetch(new Request(input as string, init)) })
    await client.createSession('root')
    await client.send('root', { content: 'plan' })
    const events = async (): Promise<WireEvent[]> => (await client.events('root', { limit: 1000 })).events
    await until(async () => (await events()).filter((e) => e.type === 'subagent/settled').length === 2 && (await client.getSession('root')).status === 'idle', 'both children settled', 30_000)
    return await events()
  } finally {
    await host.close()
  }
}

const cards = (view: SessionView): { turn: number; step: number; child: ChildView }[] =>
  view.items.toArray().flatMap((item) => (item.kind === 'turn' ? item.steps.flatMap((step) => step.children.map((child) => ({ turn: item.turn, step: step.step, child }))) : []))

describe('subagent children in the fold', () => {
  it('puts each child in the step that spawned it and settles it from a real log, the same in any chunking', async () => {
    const log = await parentLog()
    const view = foldEvents(emptySession(), log)
    const drawn = cards(view)
    expect(drawn.map(({ turn, step, child }) => [turn, step, child.mode, child.status, child.epochs, child.reason, child.answer])).toEqual([
      [1, 1, 'foreground', 'settled', 1, 'completed', 'checked'],
      [1, 2, 'background', 'settled', 1, 'completed', 'dug deep\nand wide'],
    ])
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (log.length + 1)))].sort((a, b) => a - b)
        let chunkedView = emptySession()
        let from = 0
        for (const point of [...points, log.length]) {
          chunkedView = foldEvents(chunkedView, log.slice(from, point))
          from = point
        }
        expect(cards(chunkedView)).toEqual(drawn)
      }),
      { numRuns: 30 },
    )
  }, 60_000)

  it('counts epochs: a send makes the child run again, each settlement replaces the answer, a repeat changes nothing', () => {
    let seq = 0
    const event = (type: string, data: unknown): WireEvent => ({ seq: seq++, time: 1000 + seq, type, data }) as WireEvent
    const log = [
      event('turn/start', { turn: 1 }),
      event('step/start', { turn: 1, step: 1 }),
      event('subagent/spawned', { childId: 'kid', callId: 'c1', agent: 'researcher', mode: 'background', depth: 1 }),
      event('turn/end', { turn: 1, reason: { kind: 'completed' } }),
      event('subagent/settled', { childId: 'kid', epoch: 1, messageId: 'settle:kid:1', reason: 'completed', answer: 'first' }),
      event('subagent/sent', { childId: 'kid', callId: 'c2', messageId: 'm2' }),
    ]
    const running = cards(foldEvents(emptySession(), log))[0]!.child
    expect(running).toMatchObject({ profile: 'researcher', status: 'running', epochs: 1, answer: 'first' })
    const settled = foldEvents(emptySession(), [...log, event('subagent/settled', { childId: 'kid', epoch: 2, reason: 'aborted', answer: 'second' }), event('subagent/settled', { childId: 'kid', epoch: 2, reason: 'completed', answer: 'again' })])
    expect(cards(settled)[0]).toMatchObject({ turn: 1, step: 1, child: { status: 'settled', epochs: 2, reason: 'aborted', answer: 'second' } })
  })

  it('previews the first line of an answer, cut', () => {
    expect(answerPreview('  one line\nnext')).toBe('one line')
    expect(answerPreview('x'.repeat(200), 10)).toBe(`${'x'.repeat(10)}…`)
  })
})
