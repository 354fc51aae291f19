import { describe, expect, it } from 'vitest'
import { harness } from '../testing/harness.js'

describe('the surface (model-visible history)', () => {
  it('replaces everything before firstKeptSeq with one summary message on compaction/summary; the log keeps all', async () => {
    const { agent } = await harness()
    for (const text of ['one', 'two', 'three']) {
      agent.followup(text)
      await agent.whenIdle()
    }
    const userMessages = agent.session.events.filter((e) => e.type === 'user/message')
    const before = agent.surface.messages
    expect(before.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    const firstKeptSeq = userMessages[2]!.seq // keep the third exchange
    await agent.runMaintenance(({ session }) => {
      session.append('compaction/start', { reason: 'manual' })
      session.append('compaction/summary', { summary: 'The user said one and two.', firstKeptSeq })
      session.append('compaction/end', {})
    })
    const after = agent.surface.messages
    expect(after.map((m) => (m.role === 'tool' ? 'tool' : `${m.role}: ${m.content.map((b) => ('text' in b ? b.text : '')).join('')}`))).toEqual([
      'user: The user said one and two.',
      'user: three',
      'assistant: echo: three',
    ])
    expect(before).toHaveLength(6) // a request holding the old array keeps its view
    expect(agent.session.events.filter((e) => e.type === 'user/message')).toHaveLength(3)
    agent.followup('four')
    await agent.whenIdle()
    expect(agent.surface.messages).toHaveLength(5)
  })

  it('rebuilds the same compacted surface when the session is reopened', async () => {
    const { agent } = await harness()
    agent.followup('one')
    await agent.whenIdle()
    const firstKeptSeq = agent.session.length
    agent.session.append('compaction/summary', { summary: 'earlier: one', firstKeptSeq })
    agent.followup('two')
    await agent.whenIdle()
    const { Surface } = await import('./surface.js')
    const { Session } = await import('./session.js')
    const rebuilt = Surface.attach(new Session(agent.session.header, [...agent.session.events]))
    expect(rebuilt.messages).toEqual(agent.surface.messages)
    expect(rebuilt.messages[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'earlier: one' }] })
  })
})

describe('repeated compactions', () => {
  it('keep seqs ascending, so a second compaction can cut inside what the first kept', async () => {
    const { agent } = await harness()
    for (const text of ['one', 'two', 'three', 'four']) {
      agent.followup(text)
      await agent.whenIdle()
    }
    const users = agent.session.events.filter((e) => e.type === 'user/message')
    agent.session.append('compaction/summary', { summary: 'S1', firstKeptSeq: users[1]!.seq })
    expect(agent.surface.seqs).toEqual([...agent.surface.seqs].sort((a, b) => a - b))
    expect(agent.surface.messages).toHaveLength(7)
    agent.session.append('compaction/summary', { summary: 'S2', firstKeptSeq: users[3]!.seq })
    expect(agent.surface.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['S2', 'four', 'echo: four'])
    expect(agent.surface.seqs).toHaveLength(3)
  })
})
