// What a host hands to a session's new owner when its writes are fenced (cluster/hand-over.ts): each
// message a client sent after the last durable seq, as it stands after every later splice — not one
// canceled since, an edited one as last edited, in the lane it was last moved to; nothing written
// before the durable point. The cluster case on PostgreSQL is cluster-fenced-write.test.ts.
import { expect, it } from 'vitest'
import { createAgent, createUserMessage, memoryStore } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import type { LiveSession } from '../src/index.js'
import { unwrittenMessages } from '../src/unwritten.js'

const user = (id: string, text: string) => createUserMessage(text, { id, source: { kind: 'user', delivery: 'followup' } as never })

it('replays the splices after the durable point: drops a canceled message, keeps the last edit and the last lane, leaves out what was written', async () => {
  const agent = await createAgent({ model: scripted({ responses: [] }), store: memoryStore(), sessionId: 's' })
  const { inbox, session } = agent
  inbox.splice('next-turn', 0, 0, [user('written', 'before')])
  await session.flush()
  const live = { agent, durableSeq: session.length - 1 } as unknown as LiveSession
  inbox.splice('next-turn', 1, 0, [user('edited', 'original'), user('removed', 'gone'), user('moved', 'promoted')])
  inbox.replace('edited', 'last text')
  inbox.remove('removed')
  inbox.move('moved', 'next-step')
  inbox.replace('written', 'edited after it was written') // lost: its new owner has it as written
  const handed = unwrittenMessages(live).map(({ message, lane }) => ({ id: message.id, content: message.content, lane }))
  expect(handed).toEqual([
    { id: 'edited', content: [{ type: 'text', text: 'last text' }], lane: 'next-turn' },
    { id: 'moved', content: [{ type: 'text', text: 'promoted' }], lane: 'next-step' },
  ])
  await agent.close()
})
