import { describe, expect, it } from 'vitest'
import { testPlugin } from '@bosun/testkit'
import type { Tool } from '@bosun/core'
import { messageChars } from './estimate.js'
import compaction from './index.js'
import { Ledger, type LedgerEntry } from './ledger.js'
import { planCut } from './plan.js'

const echo: Tool = { name: 'echo', description: 'Echoes.', parameters: { type: 'object' }, execute: () => ({ content: 'echoed', additionalContexts: ['a note'] }) }

describe('Ledger', () => {
  it('describes the surface entry for entry, through tool calls, empty messages and compactions', async () => {
    const kit = await testPlugin(compaction, { contextWindow: 100_000 }, {
      tools: [echo],
      responses: [
        { text: 'calling', toolCalls: [{ name: 'echo', args: { x: 1 } }] }, { text: 'done' },
        {}, // an empty answer: no assistant message in the surface
        { text: 'third' }, { text: 'Short summary.' }, { text: 'after' },
      ],
    })
    for (const input of ['one', 'two', 'three']) await kit.send(input)
    await kit.agent.compact()
    await kit.send('four')
    const ledger = Ledger.fromEvents(kit.events)
    const surface = kit.agent.surface.messages
    expect(ledger.length).toBe(surface.length)
    expect(ledger.entries.map((e) => e.chars)).toEqual(surface.map(messageChars))
    expect(ledger.chars).toBe(surface.reduce((sum, m) => sum + messageChars(m), 0))
    expect(ledger.entries[0]?.summary).toBe(true)
  })

  it('marks as boundaries only the first user/message of each step', async () => {
    const kit = await testPlugin(compaction, {}, {
      tools: [echo],
      responses: [{ toolCalls: [{ name: 'echo' }] }, { text: 'done' }],
    })
    kit.inject('context riding along')
    await kit.send('question')
    const ledger = Ledger.fromEvents(kit.events)
    const kinds = ledger.entries.map((e) => kit.events[e.seq]!.type + (e.boundary ? ' (boundary)' : ''))
    expect(kinds).toEqual([
      'user/message (boundary)', // the injected context, claimed first
      'user/message', // the follow-up, in the same step
      'assistant/message',
      'tool/result',
      'user/message (boundary)', // the tool's note starts step 2
      'assistant/message',
    ])
  })
})

describe('planCut', () => {
  const entry = (seq: number, chars: number, boundary = false, summary = false): LedgerEntry => ({ seq, chars, boundary, summary })

  it('takes the earliest boundary whose tail fits, else the last boundary', () => {
    const entries = [entry(1, 100, true), entry(2, 100), entry(5, 100, true), entry(6, 100), entry(9, 100, true), entry(10, 100)]
    expect(planCut(entries, 400)).toEqual({ count: 2, firstKeptSeq: 5, replacedChars: 200, keptChars: 400 })
    expect(planCut(entries, 399)).toEqual({ count: 4, firstKeptSeq: 9, replacedChars: 400, keptChars: 200 })
    expect(planCut(entries, 0)).toEqual({ count: 4, firstKeptSeq: 9, replacedChars: 400, keptChars: 200 })
  })

  it('has nothing to cut without a second boundary', () => {
    expect(planCut([], 0)).toBeUndefined()
    expect(planCut([entry(1, 100, true), entry(2, 100), entry(3, 100)], 0)).toBeUndefined()
  })

  it('cuts only after a leading summary, and never to replace the summary alone', () => {
    // A summary at seq 20 keeps seqs 9.. from before it: a cut at 9 would not remove anything.
    const entries = [entry(20, 50, false, true), entry(9, 100, true), entry(10, 100), entry(25, 100, true), entry(26, 100)]
    expect(planCut(entries, 0)).toEqual({ count: 3, firstKeptSeq: 25, replacedChars: 250, keptChars: 200 })
    expect(planCut([entry(20, 50, false, true), entry(25, 100, true)], 0)).toBeUndefined()
  })
})
