import { describe, expect, it } from 'vitest'
import { memoryStore, type Store } from '@bosun/core'
import { childIds, ofType, parent, read, textOf, toolResults, until } from '../test/harness.js'

describe('spawn_agent, foreground', () => {
  it('waits for the child and returns its report as the tool result; the child is an ordinary session with a delegation header', async () => {
    const store = memoryStore()
    const root = await parent({
      store,
      script: {
        'plan the trip': [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'find trains' } }] }, { text: 'booked' }],
        'find trains': [{ toolCalls: [{ name: 'report', args: { content: 'the 9:05 train' } }] }, { text: 'closing words' }],
      },
    })
    root.followup('plan the trip')
    await root.whenIdle()
    const [result] = toolResults(root.session.events)
    expect(result!.isError).toBeFalsy()
    expect(textOf(result!.content)).toBe('the 9:05 train')
    const [spawned] = ofType(root.session.events, 'subagent/spawned').map((e) => e.data as { childId: string })
    expect(spawned).toMatchObject({ callId: 'c1', mode: 'foreground', depth: 1 })
    expect(ofType(root.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId: spawned!.childId, epoch: 1, reason: 'completed', answer: 'the 9:05 train' }])
    const child = await read(store, spawned!.childId)
    expect(child.header.delegation).toEqual({ parentSessionId: 'root', callId: 'c1', depth: 1, mode: 'one-shot' })
    const task = ofType(child.events, 'user/message')[0]!.data as { content: unknown; source: unknown }
    expect(task.content).toEqual([{ type: 'text', text: 'find trains' }])
    expect(task.source).toEqual({ kind: 'parent', parentSessionId: 'root', callId: 'c1' })
    // report does not end the turn: the child's closing words are in its log, after the report
    expect(ofType(child.events, 'assistant/message')).toHaveLength(2)
    // no settle message for a foreground child: the tool result carried the answer
    expect(root.session.events.some((e) => e.type === 'user/message' && String((e.data as { id: string }).id).startsWith('settle:'))).toBe(false)
    await root.close()
  })

  it('without a report, the answer is the child\'s last assistant text', async () => {
    const root = await parent({
      script: {
        go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'count' } }] }, { text: 'ok' }],
        count: [{ text: 'one two three' }],
      },
    })
    root.followup('go')
    await root.whenIdle()
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe('one two three')
    await root.close()
  })

  it('a child that does not complete returns an error result with its partial text and end reason', async () => {
    const root = await parent({
      script: {
        go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'long' } }] }, { text: 'ok' }],
        long: [{ text: 'half of it', finish: 'max-tokens' }],
      },
    })
    root.followup('go')
    await root.whenIdle()
    const [result] = toolResults(root.session.events)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toContain('end reason: max-tokens')
    expect(textOf(result!.content)).toContain('half of it')
    await root.close()
  })

  it('a one-shot child is closed after its answer: send_to_agent to it is an error result the model sees', async () => {
    let root!: Awaited<ReturnType<typeof parent>>
    root = await parent({
      script: {
        go: [
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'once' } }] },
          () => ({ toolCalls: [{ name: 'send_to_agent', args: { childId: childIds(root.session.events)[0]!, message: 'more' } }] }),
          { text: 'ok' },
        ],
        once: [{ text: 'answer' }],
      },
    })
    root.followup('go')
    await root.whenIdle()
    const [, sent] = toolResults(root.session.events)
    expect(sent!.isError).toBe(true)
    expect(textOf(sent!.content)).toContain('SUBAGENT_ONE_SHOT')
    await root.close()
  })

  it('a spawn whose child cannot be created is an error result and is settled as an error, so that reopening does not adopt the child', async () => {
    const inner = memoryStore()
    let failing = true
    const store: Store = {
      ...inner,
      async create(header, seed) {
        if (failing && header.id !== 'root') throw new Error('disk full')
        return inner.create(header, seed)
      },
    }
    const script = { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'never' } }] }, { text: 'ok' }] }
    const root = await parent({ store, script })
    root.followup('go')
    await root.whenIdle()
    const [result] = toolResults(root.session.events)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toContain('disk full')
    const childId = childIds(root.session.events)[0]!
    expect(ofType(root.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId, epoch: 1, reason: 'error', answer: '' }])
    await root.close()
    failing = false
    const again = await parent({ store, script })
    expect(await inner.open(childId)).toBeUndefined()
    expect(again.inbox.hasPending).toBe(false)
    await again.close()
  })
})
